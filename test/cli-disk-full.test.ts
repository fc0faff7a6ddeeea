import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

// A full disk, for real: a 64 KiB tmpfs filled up. Mounting needs root (CI runs as root); where
// it cannot mount, these tests are skipped.
function mountSmallDisk(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}
const disk = mountSmallDisk();

afterAll(async () => {
  if (disk) {
    execFileSync('umount', [disk], { stdio: 'ignore' });
    rmSync(disk, { recursive: true, force: true });
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

  it('run fails with exit 1 saying the disk is full, not as an internal error', async () => {
    const full = disk as string;
    const project = await tempDir();
    expect((await agentctl(['init', project])).code).toBe(0);
    await mkdir(join(project, '.agentctl'), { recursive: true });
    await symlink(full, join(project, '.agentctl/sessions'));
    await fill(full);
    const run = await agentctl(['run', 'assistant', 'hello'], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/ENOSPC: no space left on device.*the disk is full: free some space/);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).not.toContain('--debug');
  });
});
