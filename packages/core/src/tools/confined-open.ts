import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '../tool.js';
import { confinedPath, type Roots, realRoots, refusalError, targetParts } from './confined-path.js';
import { isInside } from './inside.js';
import { type OpenedFolder, openFolder, PathChangedError } from './opened-folder.js';
import { type PrivacyOptions, refusePrivate } from './private-path.js';

/** Options of the functions that open a file tool's path. */
export interface ConfinedOpenOptions extends PrivacyOptions {
  /**
   * Asked about the real path about to be read, listed or written, once the folder holding it is
   * open and before a byte moves; throws to refuse it (an approval rule's deny, say).
   */
  check?: (real: string) => void;
}

/** A file opened for reading by {@link openConfinedFile}. */
export interface ConfinedFile {
  handle: FileHandle;
  stats: Stats;
  /** Where the file really is. */
  real: string;
}

/** The folder to write a file in, opened by {@link openTargetFolder}. */
export interface TargetFolder {
  folder: OpenedFolder;
  /** The file's name in the folder. */
  name: string;
  /** Where the file really is, or will be. */
  real: string;
}

// The opened folder (and the name in it) must still be where the checks said: inside a root, not
// private, and (when it is what the tool was asked for, `judged`) let through by `check`. Returns
// the real path of the name.
function verified(
  bases: readonly string[],
  folder: OpenedFolder,
  name: string,
  requested: string,
  options: ConfinedOpenOptions,
  judged = true,
): string {
  const real = name === '' ? folder.real : path.join(folder.real, name);
  if (!bases.some((base) => isInside(base, real)))
    throw new Error(`path "${requested}" leads outside the allowed folder`);
  refusePrivate(bases, requested, [real], options);
  if (judged) options.check?.(real);
  return real;
}

async function closing<T>(folder: OpenedFolder, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await folder.close();
  }
}

/**
 * Opens a file tool's path for reading: checked as {@link confinedPath} does, then opened in its
 * folder, which is checked again once open (so a folder swapped for a link meanwhile cannot lead
 * the read elsewhere), never through a link, and only when it is a regular file (a FIFO or a
 * device is refused, never waited on).
 *
 * @example
 * const { handle, stats } = await openConfinedFile('/work/project', 'notes/a.md');
 */
export async function openConfinedFile(
  roots: Roots,
  requested: string,
  options: ConfinedOpenOptions = {},
): Promise<ConfinedFile> {
  const bases = await realRoots(roots);
  const checked = await confinedPath(roots, requested, options);
  const folder = await openFolder(path.dirname(checked), requested);
  return closing(folder, async () => {
    const name = path.basename(checked);
    const real = verified(bases, folder, name, requested, options);
    const opened = await openRegularFileIn(folder, name, requested);
    return { ...opened, real };
  });
}

/**
 * Opens a file tool's folder (for listing), checked as {@link openConfinedFile} checks a file.
 * The caller closes it.
 */
export async function openConfinedFolder(
  roots: Roots,
  requested: string,
  options: ConfinedOpenOptions = {},
): Promise<OpenedFolder> {
  const bases = await realRoots(roots);
  const checked = await confinedPath(roots, requested, options);
  const folder = await openFolder(checked, requested);
  try {
    verified(bases, folder, '', requested, options);
    return folder;
  } catch (error) {
    await folder.close();
    throw error;
  }
}

/**
 * Opens the folder a file tool writes `requested` in, making the missing folders (`make`) one by
 * one inside the opened one, each checked once open. The caller closes `folder`.
 */
export async function openTargetFolder(
  roots: Roots,
  requested: string,
  options: ConfinedOpenOptions & { make?: boolean } = {},
): Promise<TargetFolder> {
  const { bases, folder: existing, missing, name } = await targetParts(roots, requested, options);
  // Asked before any folder is made for it.
  options.check?.(path.join(existing, ...missing, name));
  if (missing.length > 0 && !options.make) throw new Error(`path "${requested}" does not exist`);
  let folder = await openFolder(existing, requested);
  try {
    verified(bases, folder, '', requested, options, false);
    for (const segment of missing) {
      await mkdir(path.join(folder.at, segment)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw refusalError(error, requested, 'written');
      });
      const next = await openFolder(path.join(folder.at, segment), requested);
      await folder.close();
      folder = next;
      verified(bases, folder, '', requested, options, false);
    }
    return { folder, name, real: verified(bases, folder, name, requested, options) };
  } catch (error) {
    await folder.close();
    throw error;
  }
}

/**
 * Opens `name` in an opened folder for reading when it is a regular file, never following a link
 * there; a FIFO or a device is refused rather than waited on (a blocked open holds a libuv thread,
 * and the process, past the tool's timeout).
 */
export async function openRegularFileIn(
  folder: OpenedFolder,
  name: string,
  requested: string,
): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    handle = await open(
      path.join(folder.at, name),
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new PathChangedError(requested);
    throw refusalError(error, requested, 'read');
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`"${requested}" is not a regular file`);
    if (!folder.pinned) {
      // Without a pinned folder, the file opened must be the one its checked path names now.
      // ...and its folder the one opened: checked after, as a swap back could pass the first test.
      const now = await lstat(path.join(folder.real, name)).catch(() => undefined);
      if (now?.dev !== stats.dev || now?.ino !== stats.ino) throw new PathChangedError(requested);
      await folder.verify();
    }
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The `check` of {@link ConfinedOpenOptions} that asks the call's approval rules about the path
 * argument `name` (see `ToolContext.pathRefusal`); nothing to ask outside an agent's loop.
 */
export function approvalCheck(
  context: Pick<ToolContext, 'pathRefusal'> | undefined,
  name: string,
  below = false,
): ((real: string) => void) | undefined {
  const refusal = context?.pathRefusal?.bind(context);
  if (!refusal) return undefined;
  return (real) => {
    const reason = refusal(name, real, below);
    if (reason !== undefined) throw new Error(reason);
  };
}
