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

  it('lock staging files of earlier versions (<lock>.<pid>.<hex>) go the same way, in the sessions folder and the scopes folder', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'kept' });
    await store.updateScopedState('app', { 'app:seen': 1 });
    const scopes = join(dir, 'scopes');
    const owner = (pid: number) => JSON.stringify({ pid, host: 'here', time: 0 });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const dead = [
      [dir, `kept.lock.${deadPid()}.0a1b2c3d`],
      [dir, `index.lock.${deadPid()}.9f8e7d6c`],
      [dir, `kept.lock.break.${deadPid()}.00ff00ff`],
      [scopes, `user%3Aada.json.lock.${deadPid()}.12345678`],
    ];
    const live = [
      [dir, `kept.lock.${process.pid}.0a1b2c3d`],
      [scopes, `app.json.lock.${process.pid}.0a1b2c3d`],
    ];
    for (const [folder, name] of [...dead, ...live]) {
      await writeFile(join(folder!, name!), owner(Number(name!.split('.').at(-2))));
      await utimes(join(folder!, name!), hourAgo, hourAgo);
    }
    // Too recent to be taken for abandoned (another machine's, under a pid that means nothing here).
    const recent = `kept.lock.${deadPid()}.abcdef01`;
    await writeFile(join(dir, recent), owner(1));

    expect((await store.list({ verify: true })).map((s) => s.id)).toEqual(['kept']);
    // A new store (a new process) sweeps the scopes folder at its first update of shared state.
    await new FileSessionStore({ path: dir }).updateScopedState('app', { 'app:seen': 2 });
    const names = [...(await readdir(dir)), ...(await readdir(scopes))];
    for (const [, name] of dead) expect(names).not.toContain(name);
    for (const [, name] of live) expect(names).toContain(name);
    expect(names).toContain(recent);
    expect(await store.getScopedState('app')).toEqual({ 'app:seen': 2 });
  });
});
