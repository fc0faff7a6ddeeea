import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFolders } from '../src/make-folders.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'make-folders-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('makeFolders', () => {
  it('makes the missing folders and returns the first it made', async () => {
    expect(await makeFolders(join(dir, 'a/b/c'))).toBe(join(dir, 'a'));
    expect(statSync(join(dir, 'a/b/c')).isDirectory()).toBe(true);
    expect(await makeFolders(join(dir, 'a/b'))).toBeUndefined();
  });

  // Node's own recursive mkdir retries these forever: /proc answers ENOENT for a folder whose parent is there.
  it('fails at once, naming the folder, where the system makes none', async () => {
    await expect(makeFolders('/proc/agentctl-none/deeper')).rejects.toMatchObject({
      code: 'ENOENT',
      syscall: 'mkdir',
      message: "ENOENT: no such file or directory, mkdir '/proc/agentctl-none'",
    });
  });

  it('fails under a file', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await expect(makeFolders(join(dir, 'file/sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(existsSync(join(dir, 'file/sub'))).toBe(false);
  });
});
