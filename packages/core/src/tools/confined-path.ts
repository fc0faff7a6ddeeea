import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './inside.js';
import { type PrivacyOptions, refusePrivate } from './private-path.js';

/** One folder, or several (the first is where relative paths start). */
export type Roots = string | readonly string[];

/** The real path of the folder tools are confined to; fails clearly when it does not exist. */
export async function realRoot(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch {
    throw new Error(`the folder ${root} does not exist`);
  }
}

/** The real paths of the roots (see {@link realRoot}). */
export async function realRoots(roots: Roots): Promise<string[]> {
  return Promise.all((typeof roots === 'string' ? [roots] : roots).map(realRoot));
}

// What the system's refusals mean, said without the absolute path its message quotes.
const WHY: Record<string, string> = {
  ELOOP: 'it is a loop of symbolic links',
  ENOTDIR: 'a part of it is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENAMETOOLONG: 'the name is too long',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EBUSY: 'it is busy',
  EISDIR: 'it is a folder',
};

/**
 * The error a file tool reports when the system refuses `requested` (`doing`: "read" or
 * "written"): its meaning, without the absolute or descriptor path the system's message quotes.
 * An error that is not the system's is returned as it is.
 */
export function refusalError(error: unknown, requested: string, doing: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !code.startsWith('E')) return error as Error;
  if (code === 'ENOENT') return new Error(`path "${requested}" does not exist`);
  // A socket, or a device without a driver.
  if (code === 'ENXIO' || code === 'ENODEV') return new Error(`"${requested}" is not a regular file`);
  return new Error(`path "${requested}" cannot be ${doing}: ${WHY[code] ?? code}`);
}

function lexicalIn(bases: readonly string[], requested: string): string {
  // The system would refuse it anyway, in a message quoting the absolute path (or the temporary
  // file a write goes through) rather than what the model asked for.
  if (requested.includes('\0')) throw new Error(`path ${JSON.stringify(requested)} holds a NUL character`);
  const lexical = path.resolve(bases[0], requested);
  if (!bases.some((base) => isInside(base, lexical)))
    throw new Error(`path "${requested}" is outside the allowed folder`);
  return lexical;
}

/**
 * Resolves `requested` (relative to the first root) to a real path inside one of the roots.
 * Refuses `..` escapes, absolute paths elsewhere, symbolic links that lead outside, and (unless
 * `allowPrivate`) private files (`PRIVATE_NAMES`), named or reached through a link.
 */
export async function confinedPath(
  roots: Roots,
  requested: string,
  privacy?: PrivacyOptions,
): Promise<string> {
  const bases = await realRoots(roots);
  const lexical = lexicalIn(bases, requested);
  // By name first: whether a private file exists is not the model's to learn either.
  refusePrivate(bases, requested, [lexical], privacy);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`path "${requested}" does not exist`);
    throw new Error(
      `path "${requested}" cannot be read: ${WHY[(error as NodeJS.ErrnoException).code ?? ''] ?? (error as Error).message}`,
    );
  }
  if (!bases.some((base) => isInside(base, real)))
    throw new Error(`path "${requested}" leads outside the allowed folder`);
  refusePrivate(bases, requested, [real], privacy);
  return real;
}

/**
 * Like {@link confinedPath} for a file about to be written, which may not exist yet: its nearest
 * existing folder must really be inside a root, and an existing file must be a regular file
 * (never a link, which could lead elsewhere). Returns where to write.
 */
export async function confinedTarget(
  roots: Roots,
  requested: string,
  privacy?: PrivacyOptions,
): Promise<string> {
  const { folder, missing, name } = await targetParts(roots, requested, privacy);
  return path.join(folder, ...missing, name);
}

/**
 * Where {@link confinedTarget} writes, in parts: the nearest existing folder (real, inside a
 * root), the folders to make below it, and the file's name; with the roots' real paths.
 */
export async function targetParts(
  roots: Roots,
  requested: string,
  privacy?: PrivacyOptions,
): Promise<{ bases: string[]; folder: string; missing: string[]; name: string }> {
  const bases = await realRoots(roots);
  const lexical = lexicalIn(bases, requested);
  refusePrivate(bases, requested, [lexical], privacy);
  // `notes/` names a folder: resolving would drop the slash and write a file called notes.
  if (/[\\/]$/.test(requested) || /(^|[\\/])\.{1,2}$/.test(requested))
    throw new Error(`path "${requested}" names a folder, not a file`);
  // Said here: the system's refusal would quote the temporary file the write goes through.
  const long = requested.split(/[\\/]/).find((segment) => Buffer.byteLength(segment) > 255);
  if (long !== undefined) throw new Error(`path "${requested}" has a name longer than 255 bytes`);
  const existing = await lstat(lexical).catch(() => undefined);
  if (existing && !existing.isFile()) throw new Error(`"${requested}" exists and is not a regular file`);
  let folder = path.dirname(lexical);
  const missing: string[] = [];
  for (;;) {
    const real = await realpath(folder).catch(() => undefined);
    if (real !== undefined) {
      if (!bases.some((base) => isInside(base, real)))
        throw new Error(`path "${requested}" leads outside the allowed folder`);
      missing.reverse();
      const name = path.basename(lexical);
      refusePrivate(bases, requested, [path.join(real, ...missing, name)], privacy);
      return { bases, folder: real, missing, name };
    }
    missing.push(path.basename(folder));
    folder = path.dirname(folder);
  }
}

/**
 * Opens a confined path for reading when it is a regular file, with its stats; a FIFO or a device
 * is refused rather than waited on (a blocked open holds a libuv thread, and the process, past the
 * tool's timeout).
 */
export async function openRegularFile(
  real: string,
  requested: string,
): Promise<{ handle: FileHandle; stats: Stats }> {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (stats.isFile()) return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
  await handle.close();
  throw new Error(`"${requested}" is not a regular file`);
}
