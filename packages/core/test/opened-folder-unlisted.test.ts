import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// A folder one may pass through but not list (mode 0711) refuses to be opened: the tests run as
// root, whom no mode stops, so opening a folder is refused here as the system refuses others.
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  const { constants } = await import('node:fs');
  return {
    ...fs,
    open: (where: string, flags: number, ...rest: []) =>
      typeof flags === 'number' && (flags & constants.O_DIRECTORY) !== 0 && String(where).endsWith('/notes')
        ? Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }))
        : fs.open(where, flags, ...rest),
  };
});

const { openFolder, openRegularFileIn, PathChangedError, readFile } = await import('../src/index.js');

let base = '';
let root = '';
let outside = '';
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-unlisted-')));
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

describe('a folder that cannot be opened, only passed through', () => {
  it('still has its files read (as before folders were opened), checked by what the folder is', async () => {
    expect(await readFile({ root }).execute({ path: 'notes/a.txt' }, context as never)).toBe('inside');
    const folder = await openFolder(path.join(root, 'notes'), 'notes');
    expect(folder.pinned).toBe(false);
    try {
      await rename(path.join(root, 'notes'), path.join(root, 'kept'));
      await symlink(outside, path.join(root, 'notes'));
      await expect(openRegularFileIn(folder, 'a.txt', 'notes/a.txt')).rejects.toThrow(PathChangedError);
    } finally {
      await folder.close();
    }
  });
});
