import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, lstat, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { OpenedFolder } from './opened-folder.js';

/**
 * Writes `content` to `target` as a new file put in place by rename, never through what is there:
 * a hard link to a file elsewhere (outside the tools' folder, or a package manager's shared store)
 * keeps its content, and a symbolic link swapped in after the path was checked is replaced, not
 * followed. An existing file's permission bits are kept. `target` is a real path whose folder
 * exists (see `confinedTarget`).
 *
 * @example
 * await replaceFile('/work/project/notes/todo.md', '- ship it\n');
 */
export async function replaceFile(target: string, content: string): Promise<void> {
  await replaceFileIn({ at: path.dirname(target), verify: async () => {} }, path.basename(target), content);
}

/**
 * {@link replaceFile} for `name` in a folder a file tool opened (see `openTargetFolder`): the
 * temporary file is made, and renamed into place, in that folder whatever was swapped meanwhile.
 */
export async function replaceFileIn(
  folder: Pick<OpenedFolder, 'at' | 'verify'>,
  name: string,
  content: string,
): Promise<void> {
  const target = path.join(folder.at, name);
  const before = await lstat(target).catch(() => undefined);
  // A rename needs only the folder's permission: a file made read-only stays as protected as a
  // write in place would leave it.
  if (before) await access(target, constants.W_OK);
  const mode = before?.isFile() ? before.mode & 0o7777 : 0o666;
  // Cut so that a name near the system's 255-byte limit still leaves room for the suffix.
  const temporary = path.join(folder.at, `.${name.slice(0, 100)}.${randomBytes(6).toString('hex')}.tmp`);
  // O_EXCL (with O_NOFOLLOW): a file or link planted at the temporary name is never written through.
  const handle = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    mode,
  ).catch((error: NodeJS.ErrnoException) => {
    // The opened folder was removed (or replaced) meanwhile.
    throw error.code === 'ENOENT'
      ? new Error(`the folder of ${name} was removed while it was being written`)
      : error;
  });
  try {
    try {
      // Where the folder is not pinned, the new file must be in the folder opened before a byte goes in.
      await folder.verify();
      await handle.writeFile(content);
      // The mode given to open is cut by the umask; an existing file's bits are kept as they were.
      if (before?.isFile()) await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
