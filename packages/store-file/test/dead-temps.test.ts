import { spawnSync } from 'node:child_process';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

// The pid of a process that has exited: one started and waited for.
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('no child process started');
  return child.pid;
}

describe('temp files of session creates killed midway', () => {
  it('are swept where the folder is read (sessions list, an index rebuild): a dead process’s, never a live one’s', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'kept' });
    const dead = `lost.jsonl.${deadPid()}.0a1b2c3d.tmp`;
    const live = `busy.jsonl.${process.pid}.0a1b2c3d.tmp`;
    // Another machine's create in a shared folder, under a pid that means nothing here: too recent to be abandoned.
    const recent = `fresh.jsonl.${deadPid()}.0a1b2c3d.tmp`;
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of [dead, live, recent]) await writeFile(join(dir, name), '{"version":1,"id":"x"');
    await utimes(join(dir, dead), hourAgo, hourAgo);
    await utimes(join(dir, live), hourAgo, hourAgo);

    expect((await store.list({ verify: true })).map((s) => s.id)).toEqual(['kept']);
    const names = await readdir(dir);
    expect(names).not.toContain(dead);
    expect(names).toContain(live);
    expect(names).toContain(recent);
  });
});
