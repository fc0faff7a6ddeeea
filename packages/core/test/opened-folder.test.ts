import { mkdir, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFolder, openRegularFileIn, openTargetFolder, replaceFileIn } from '../src/index.js';

// A folder swapped for a link to `outside` after it was opened, done in order rather than raced:
// where the system pins an opened folder (Linux), names still resolve in the folder opened.

let base = '';
let root = '';
let outside = '';
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-opened-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'notes'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'notes', 'a.txt'), 'inside');
  await writeFile(path.join(outside, 'a.txt'), 'outside');
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function swap(): Promise<void> {
  await rename(path.join(root, 'notes'), path.join(root, 'kept'));
  await symlink(outside, path.join(root, 'notes'));
}

async function unswap(): Promise<void> {
  await rm(path.join(root, 'notes'));
  await rename(path.join(root, 'kept'), path.join(root, 'notes'));
}

describe.skipIf(process.platform !== 'linux')('an opened folder on Linux', () => {
  it('is pinned: a read and a write after the swap reach the folder opened, never the link', async () => {
    const folder = await openFolder(path.join(root, 'notes'), 'notes');
    expect(folder.pinned).toBe(true);
    expect(folder.real).toBe(path.join(root, 'notes'));
    try {
      await swap();
      const { handle } = await openRegularFileIn(folder, 'a.txt', 'notes/a.txt');
      try {
        expect(await handle.readFile('utf8')).toBe('inside');
      } finally {
        await handle.close();
      }
      await replaceFileIn(folder, 'b.txt', 'written');
    } finally {
      await folder.close();
      await unswap();
    }
    expect(await readFile(path.join(root, 'notes', 'b.txt'), 'utf8')).toBe('written');
    await expect(readFile(path.join(outside, 'b.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('makes missing folders one inside the other, each checked once open', async () => {
    const { folder, name, real } = await openTargetFolder(root, 'notes/x/y/c.txt', { make: true });
    try {
      expect(name).toBe('c.txt');
      expect(real).toBe(path.join(root, 'notes', 'x', 'y', 'c.txt'));
      await replaceFileIn(folder, name, 'deep');
    } finally {
      await folder.close();
    }
    expect(await readFile(real, 'utf8')).toBe('deep');
  });
});
