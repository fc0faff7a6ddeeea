import { mkdir, mkdtemp, readdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Where the system names no descriptor's path (macOS, Windows), an opened folder is not pinned:
// the file opened in it must then be the one its checked path names, or the call fails.
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    readlink: (where: string, ...rest: []) =>
      String(where).startsWith('/proc/self/fd/')
        ? Promise.reject(Object.assign(new Error('no /proc'), { code: 'ENOENT' }))
        : fs.readlink(where, ...rest),
  };
});

const { listDir, openFolder, openRegularFileIn, PathChangedError, readFile, replaceFileIn } = await import(
  '../src/index.js'
);

let base = '';
let root = '';
let outside = '';
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-fallback-')));
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

const context = { callId: 'c', signal: new AbortController().signal, messages: [], endInvocation: () => {} };

describe('an opened folder without descriptor paths', () => {
  it('still reads inside the root and refuses a link out', async () => {
    const tool = readFile({ root });
    expect(await tool.execute({ path: 'notes/a.txt' }, context as never)).toBe('inside');
    await symlink(outside, path.join(root, 'out'));
    await expect(tool.execute({ path: 'out/a.txt' }, context as never)).rejects.toThrow(/outside/);
  });

  it('refuses a file whose folder was swapped for a link after it was opened', async () => {
    const folder = await openFolder(path.join(root, 'notes'), 'notes');
    expect(folder.pinned).toBe(false);
    try {
      await rename(path.join(root, 'notes'), path.join(root, 'kept'));
      await symlink(outside, path.join(root, 'notes'));
      await expect(openRegularFileIn(folder, 'a.txt', 'notes/a.txt')).rejects.toThrow(PathChangedError);
      // A write there stops before a byte goes in, and leaves nothing behind.
      await expect(replaceFileIn(folder, 'b.txt', 'written')).rejects.toThrow(PathChangedError);
      expect(await readdir(outside)).toEqual(['a.txt']);
    } finally {
      await folder.close();
      await rm(path.join(root, 'notes'));
      await rename(path.join(root, 'kept'), path.join(root, 'notes'));
    }
  });

  it('lists a folder, and refuses the listing when the folder was swapped meanwhile', async () => {
    expect(await listDir({ root }).execute({ path: 'notes' }, context as never)).toBe('a.txt (6 bytes)');
    const folder = await openFolder(path.join(root, 'notes'), 'notes');
    try {
      await rename(path.join(root, 'notes'), path.join(root, 'kept'));
      await symlink(outside, path.join(root, 'notes'));
      await expect(folder.verify()).rejects.toThrow(PathChangedError);
    } finally {
      await folder.close();
    }
  });
});
