import { lstat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HOST, processGone } from './file-lock.js';

// What `SessionLogs.create` stages a new log in: `<id>.jsonl.<pid>.<8 hex>.tmp`; and where earlier
// versions staged a lock's owner before linking it to the lock (`<id>.lock`, `index.lock`, a scope's
// `<scope>.json.lock`, a breaker's `<lock>.break`): `<lock>.<pid>.<8 hex>`, left by a taker killed
// between its two steps, which no current version ever names again.
const TEMPS = [/^.+\.jsonl\.(\d+)\.[0-9a-f]{8}\.tmp$/, /^.+\.lock(?:\.break)?\.(\d+)\.[0-9a-f]{8}$/];

// A folder shared by several machines may hold another's temp file, whose pid means nothing here:
// only one older than any create takes is taken for abandoned.
const GRACE_MS = 10 * 60_000;

/**
 * Removes, among `names` (the entries of `dir`), the temp files of session creates (and the lock
 * staging files of earlier versions) whose process was killed midway: only those of a process of
 * this machine known to have exited, last written more than ten minutes ago. Never a live
 * process's. Called where the folder is read anyway.
 */
export async function sweepDeadTemps(dir: string, names: readonly string[]): Promise<void> {
  const now = Date.now();
  for (const name of names) {
    const pid = tempPid(name);
    if (pid === undefined || !processGone(Number(pid), HOST)) continue;
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < GRACE_MS) continue;
    // Gone already (another sweeper) is as good as removed.
    await unlink(path).catch(() => undefined);
  }
}

// The pid in a temp file's name, if `name` is one.
function tempPid(name: string): string | undefined {
  for (const pattern of TEMPS) {
    const pid = pattern.exec(name)?.[1];
    if (pid !== undefined) return pid;
  }
  return undefined;
}
