import { link, open, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { backoffDelay, retryPolicy, sleep } from '@agentctl/core';
import { LockTimeoutError } from './errors.js';

/** How long to wait for a lock and when a held lock counts as abandoned. */
export interface LockOptions {
  /** A lock older than this is taken over even if its owner looks alive. Default 10 s. */
  staleMs?: number;
  /** Give up waiting after this long. Default 30 s. */
  timeoutMs?: number;
}

/** What a lock file records about its holder. */
interface LockOwner {
  pid: number;
  host: string;
  time: number;
}

// A lock file with no readable owner comes from the O_EXCL fallback (creator killed between open
// and write) or from a hand; a live writer fills it in microseconds, so a short grace is enough.
const UNREADABLE_GRACE_MS = 1_000;
/** This machine's name, recorded in lock and lease files. */
export const HOST = hostname();
// Polling a held lock: jittered waits doubling from 2 ms up to 25 ms, so waiters spread out.
const LOCK_POLL = retryPolicy({ initialDelayMs: 2, maxDelayMs: 25 });

/**
 * Takes the lock file at `path` (created atomically, holding the owner's pid, host and time) and
 * returns the function that releases it. A lock whose owner process is gone, or that is older than
 * `staleMs`, is broken; breaking goes through a second lock so two waiters never both break it.
 */
export async function acquireLock(path: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const staleMs = options.staleMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    if (await tryCreate(path, staleMs)) return () => unlink(path).catch(ignoreMissing);
    const seen = await readOwner(path);
    if (seen !== undefined && isStale(seen, staleMs)) {
      await breakLock(path, seen, staleMs);
      continue;
    }
    const waited = Date.now() - started;
    if (waited >= timeoutMs) throw new LockTimeoutError(path, waited, describe(seen?.owner));
    await sleep(backoffDelay(LOCK_POLL, attempt) ?? LOCK_POLL.maxDelayMs);
  }
}

/**
 * Creates the lock with its owner already written: the owner goes to a staging file that is then
 * hard-linked to the lock path, which fails atomically when the lock exists. So a lock file is
 * never seen empty, even when its creator is killed at the worst moment. The staging file has one
 * name per lock (`<lock>.new`, created exclusively), so one left by a killed creator is found, and
 * removed once judged stale like a lock, by the next one to take the lock: none is left for good.
 */
async function tryCreate(path: string, staleMs: number): Promise<boolean> {
  const staging = `${path}.new`;
  const owner: LockOwner = { pid: process.pid, host: HOST, time: Date.now() };
  try {
    await writeFile(staging, JSON.stringify(owner), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      // A write the disk refuses (full) must not leave the staging file behind.
      await unlink(staging).catch(ignoreMissing);
      throw error;
    }
    // Another taker is between its two steps (microseconds), or one was killed there.
    const seen = await readOwner(staging);
    if (seen !== undefined && isStale(seen, staleMs)) await removeIfUnchanged(staging, seen);
    return false;
  }
  let ours = true;
  try {
    await link(staging, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // Judged stale and removed under us (held up past `staleMs`): what is there now is another's.
    if (code === 'ENOENT') {
      ours = false;
      return false;
    }
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') return createExclusive(path, owner);
    throw error;
  } finally {
    if (ours) await unlink(staging).catch(ignoreMissing);
  }
}

/** For file systems without hard links: O_EXCL create, then write (briefly empty). */
async function createExclusive(path: string, owner: LockOwner): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(JSON.stringify(owner));
  } finally {
    await handle.close();
  }
  return true;
}

interface SeenLock {
  raw: string;
  owner?: LockOwner;
  mtimeMs: number;
}

async function readOwner(path: string): Promise<SeenLock | undefined> {
  try {
    const [raw, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { raw, owner: parseOwner(raw), mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.time === 'number' && typeof value.host === 'string') {
      return value as LockOwner;
    }
  } catch {
    // An empty or partial lock file: its writer died before finishing it.
  }
  return undefined;
}

function isStale(seen: SeenLock, staleMs: number): boolean {
  const now = Date.now();
  if (!seen.owner) return now - seen.mtimeMs > UNREADABLE_GRACE_MS;
  if (now - seen.owner.time > staleMs) return true;
  return processGone(seen.owner.pid, seen.owner.host);
}

/** True when the process `pid` on `host` is known to have exited (only this host's processes can be known). */
export function processGone(pid: number, host: string): boolean {
  return host === HOST && !isAlive(pid);
}

/** True unless the process is known to be gone (EPERM means it exists but belongs to someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Removes the lock only if it still holds what was judged stale, under a guard lock. */
async function breakLock(path: string, judged: SeenLock, staleMs: number): Promise<void> {
  const guard = `${path}.break`;
  if (!(await tryCreate(guard, staleMs))) {
    const seen = await readOwner(guard);
    // A breaker killed mid-break leaves its guard behind; it is recovered like any lock.
    if (seen !== undefined && isStale(seen, staleMs)) await unlink(guard).catch(ignoreMissing);
    else await sleep(2);
    return;
  }
  try {
    await removeIfUnchanged(path, judged);
  } finally {
    await unlink(guard).catch(ignoreMissing);
  }
}

// Comparing the modification time too tells a fresh, still-empty file from the abandoned one.
async function removeIfUnchanged(path: string, judged: SeenLock): Promise<void> {
  const current = await readOwner(path);
  if (current?.raw === judged.raw && current.mtimeMs === judged.mtimeMs)
    await unlink(path).catch(ignoreMissing);
}

function describe(owner: LockOwner | undefined): string {
  if (!owner) return 'an unknown process';
  return `pid ${owner.pid} on ${owner.host} since ${new Date(owner.time).toISOString()}`;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
