import { execFileSync } from 'node:child_process';
import { access, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../src/file-lock.js';
import { LockTimeoutError } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
}

describe('acquireLock', () => {
  it('writes the owner pid and removes the lock on release', async () => {
    const lock = join(await tempDir(), 's.lock');
    const release = await acquireLock(lock);
    expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await release();
    await expect(access(lock)).rejects.toThrow();
  });

  it('makes a second holder wait until the first releases', async () => {
    const lock = join(await tempDir(), 's.lock');
    const order: string[] = [];
    const release = await acquireLock(lock);
    const second = acquireLock(lock).then((r) => {
      order.push('second');
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    order.push('first releases');
    await release();
    await (await second)();
    expect(order).toEqual(['first releases', 'second']);
  });

  it('recovers a lock left by a dead process', async () => {
    const lock = join(await tempDir(), 's.lock');
    await writeFile(lock, JSON.stringify({ pid: deadPid(), host: hostname(), time: Date.now() }));
    const release = await acquireLock(lock, { timeoutMs: 2_000 });
    expect(JSON.parse(await readFile(lock, 'utf8')).pid).toBe(process.pid);
    await release();
  });

  it('recovers a lock older than the bound even when its owner looks alive', async () => {
    const lock = join(await tempDir(), 's.lock');
    await writeFile(
      lock,
      JSON.stringify({ pid: process.ppid, host: 'elsewhere', time: Date.now() - 60_000 }),
    );
    const release = await acquireLock(lock, { staleMs: 10_000, timeoutMs: 2_000 });
    await release();
  });

  it('recovers an empty lock file once it is past the grace period', async () => {
    const lock = join(await tempDir(), 's.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 5_000);
    await utimes(lock, old, old);
    await (await acquireLock(lock, { timeoutMs: 2_000 }))();
  });

  it('times out on a live lock with an error naming the file and the owner', async () => {
    const lock = join(await tempDir(), 's.lock');
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now() }));
    const error = await acquireLock(lock, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toContain(lock);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
  });

  it('leaves nothing beside the lock once it is released', async () => {
    const lock = join(await tempDir(), 's.lock');
    const release = await acquireLock(lock);
    expect(await readdir(dirname(lock))).toEqual(['s.lock']);
    await release();
    expect(await readdir(dirname(lock))).toEqual([]);
  });

  it('removes the staging file a killed taker left, when the lock is next taken', async () => {
    const lock = join(await tempDir(), 's.lock');
    // What a taker killed between writing its owner and linking it to the lock leaves.
    await writeFile(`${lock}.new`, JSON.stringify({ pid: deadPid(), host: hostname(), time: Date.now() }));
    const release = await acquireLock(lock, { timeoutMs: 2_000 });
    expect(JSON.parse(await readFile(lock, 'utf8')).pid).toBe(process.pid);
    await release();
    expect(await readdir(dirname(lock))).toEqual([]);
  });

  it('also one of another host once it is older than the bound, and an empty one past the grace', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'a.lock.new'),
      JSON.stringify({ pid: process.ppid, host: 'elsewhere', time: Date.now() - 60_000 }),
    );
    await writeFile(join(dir, 'b.lock.new'), '');
    const old = new Date(Date.now() - 5_000);
    await utimes(join(dir, 'b.lock.new'), old, old);
    for (const name of ['a.lock', 'b.lock'])
      await (await acquireLock(join(dir, name), { timeoutMs: 2_000 }))();
    expect(await readdir(dir)).toEqual([]);
  });

  it('never removes the staging file of a live process: the taker waits for it', async () => {
    const lock = join(await tempDir(), 's.lock');
    const live = JSON.stringify({ pid: process.ppid, host: hostname(), time: Date.now() });
    await writeFile(`${lock}.new`, live);
    const error = await acquireLock(lock, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(await readFile(`${lock}.new`, 'utf8')).toBe(live);
  });
});
