import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

// A full disk, for real: a 64 KiB tmpfs filled up; a read-only one, a tmpfs remounted read-only. Mounting needs root (CI runs as root); where
// it cannot mount, these tests are skipped.
function mountDisk(size: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}
const disk = mountDisk('64k');
// Made writable for `init`, then remounted read-only.
const readOnly = mountDisk('4m');

afterAll(async () => {
  for (const dir of [disk, readOnly]) {
    if (!dir) continue;
    execFileSync('umount', [dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
  await removeTempDirs();
});

// Fills what is left of the disk; ENOSPC on the last write is the point.
async function fill(dir: string): Promise<void> {
  await writeFile(join(dir, 'fill'), Buffer.alloc(64 * 1024)).catch(() => undefined);
}

describe.skipIf(disk === undefined)('on a full disk', () => {
  it('init fails with exit 1 saying the disk is full, and leaves nothing half-written', async () => {
    const full = disk as string;
    const target = join(full, 'project');
    await fill(full);
    const init = await agentctl(['init', target]);
    expect(init.code).toBe(1);
    expect(init.stderr).toMatch(/nothing was written: ENOSPC: no space left on device.*the disk is full/);
    expect(init.stderr).not.toContain('internal error');
    expect(await readdir(full)).toEqual(['fill']);
  });

  it('run fails with exit 1 saying the disk is full wherever the disk fills, and leaves no temp files', async () => {
    const full = disk as string;
    const project = await tempDir();
    expect((await agentctl(['init', project])).code).toBe(0);
    await mkdir(join(project, '.agentctl'), { recursive: true });
    await symlink(full, join(project, '.agentctl/sessions'));
    const outcomes = new Set<string>();
    // From no room for the session's lease to room for all but the run's events: each size fails
    // at another write (the lock, the lease, the new session, the events at the end of the run).
    for (let free = 4096; free <= 24 * 1024; free += 4096) {
      for (const entry of await readdir(full)) await rm(join(full, entry), { force: true });
      await writeFile(join(full, 'fill'), Buffer.alloc(64 * 1024 - free)).catch(() => undefined);
      const run = await agentctl(['run', 'assistant', 'hello'], { cwd: project });
      expect(run.stderr, `with ${free} bytes free`).not.toContain('internal error');
      expect(run.stderr).not.toContain('--debug');
      expect([0, 1]).toContain(run.code);
      if (run.code === 1) {
        expect(run.stderr).toMatch(/ENOSPC: no space left on device.*the disk is full: free some space/);
        const after = run.stderr.includes("the run's session could not be stored");
        outcomes.add(after ? 'after the run' : 'before it');
        // A session id is printed only for a session that exists: never for a run refused before it.
        if (!after) expect(run.stderr, `with ${free} bytes free`).not.toMatch(/^session [0-9a-f-]{36}$/m);
      } else {
        expect(run.stderr).toMatch(/^session [0-9a-f-]{36}$/m);
      }
      // A session's own files may stay (its log, the index, a lease its dead process no longer
      // holds); no temp file of a write the disk refused does.
      const left = (await readdir(full)).filter((f) => f !== 'fill');
      expect(
        left.filter((f) => !/^([0-9a-f-]+\.(jsonl|lease)|index\.jsonl)$/.test(f)),
        `with ${free} bytes free`,
      ).toEqual([]);
    }
    expect([...outcomes].sort()).toEqual(['after the run', 'before it']);
  });
});

describe.skipIf(readOnly === undefined)('on a read-only disk', () => {
  let project: string;
  beforeAll(async () => {
    project = join(readOnly as string, 'project');
    expect((await agentctl(['init', project])).code).toBe(0);
    execFileSync('mount', ['-o', 'remount,ro', readOnly as string], { stdio: 'ignore' });
  });

  it('run fails with exit 1 naming the read-only folder, not as an internal error', async () => {
    const run = await agentctl(['run', 'assistant', 'hello'], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `EROFS: read-only file system, access '${project}' (the file system is read-only)`,
    );
    expect(run.stderr).not.toContain('internal error');
  });

  it('sessions list says there are none, as it does for a project never run', async () => {
    const list = await agentctl(['sessions', 'list', '--json'], { cwd: project });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
  });
});
