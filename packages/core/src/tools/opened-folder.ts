import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { refusalError } from './confined-path.js';

/**
 * A folder a file tool opened. Where the system can (Linux, through `/proc/self/fd`), `at` reaches
 * the opened folder itself, so a name under it resolves there even when a folder on the way is
 * renamed or swapped for a symbolic link afterwards (Node has no `openat`); elsewhere `at` is the
 * folder's real path, checked once when opened.
 */
export interface OpenedFolder {
  /** Where the folder really is, as the system names the opened folder. */
  readonly real: string;
  /** The path to reach names in the folder by: `at/name`. */
  readonly at: string;
  /** Whether `at` is pinned to the opened folder (false: a swap after opening is not seen). */
  readonly pinned: boolean;
  /**
   * Throws a {@link PathChangedError} when `real` no longer names the opened folder (a folder
   * swapped since): asked after working by path in a folder that is not pinned.
   */
  verify(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown when what a path leads to changed while a file tool was opening it. */
export class PathChangedError extends Error {
  constructor(requested: string) {
    super(`path "${requested}" changed while it was being opened; nothing was read or written`);
    this.name = new.target.name;
  }
}

const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

// Whether `/proc/self/fd/N` names an open descriptor's file here; asked once.
let procFds: Promise<boolean> | undefined;

function hasProcFds(handle: FileHandle): Promise<boolean> {
  procFds ??= readlink(`/proc/self/fd/${handle.fd}`).then(
    (named) => path.isAbsolute(named),
    () => false,
  );
  return procFds;
}

/**
 * Opens the folder at `where` (whose last name is never followed as a link) and names where it
 * really is. `requested` is what the model asked for, for messages. `where` may itself be under
 * another opened folder's `at`.
 *
 * @example
 * const folder = await openFolder('/work/project/notes', 'notes/a.md');
 * try { await readFile(path.join(folder.at, 'a.md')); } finally { await folder.close(); }
 */
export async function openFolder(where: string, requested: string): Promise<OpenedFolder> {
  let handle: FileHandle;
  try {
    handle = await open(where, FOLDER_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The last name became a link after it was checked (O_DIRECTORY may say ENOTDIR of a link).
    const link = code === 'ENOTDIR' && (await lstat(where).catch(() => undefined))?.isSymbolicLink();
    if (code === 'ELOOP' || link) throw new PathChangedError(requested);
    // A folder one may pass through but not list (mode 0711) cannot be opened to read.
    if (code === 'EACCES') return unlisted(where, requested);
    if (code === 'ENOTDIR')
      throw new Error(
        path.basename(where) === path.basename(requested)
          ? `"${requested}" is not a folder`
          : `path "${requested}" goes through ${path.basename(where)}, which is not a folder`,
      );
    throw refusalError(error, requested, 'opened');
  }
  try {
    const opened = await handle.stat();
    // A removed folder is named "... (deleted)" and nothing can be made in it.
    if (!opened.isDirectory() || opened.nlink === 0) throw new PathChangedError(requested);
    const at = `/proc/self/fd/${handle.fd}`;
    if (await hasProcFds(handle)) {
      const real = await readlink(at);
      return { real, at, pinned: true, verify: async () => {}, close: () => handle.close() };
    }
    // No descriptor paths: the folder's real path must still be the folder that was opened.
    const real = await realpath(where);
    const verify = async () => {
      const now = await stat(real).catch(() => undefined);
      if (now?.dev !== opened.dev || now?.ino !== opened.ino) throw new PathChangedError(requested);
    };
    await verify();
    return { real, at: real, pinned: false, verify, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

// A folder that cannot be opened (only passed through) is reached by its real path and checked by
// what it is, as where descriptors name no path: not pinned.
async function unlisted(where: string, requested: string): Promise<OpenedFolder> {
  const seen = await lstat(where);
  if (seen.isSymbolicLink()) throw new PathChangedError(requested);
  const real = await realpath(where);
  const verify = async () => {
    const now = await stat(real).catch(() => undefined);
    if (now?.dev !== seen.dev || now?.ino !== seen.ino) throw new PathChangedError(requested);
  };
  await verify();
  return { real, at: real, pinned: false, verify, close: async () => {} };
}
