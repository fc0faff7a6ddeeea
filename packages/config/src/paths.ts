import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** Whether `target` is `root` or inside it. */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The outcome of resolving a path written in a file. */
export interface ResolvedPath {
  absolute: string;
  exists: boolean;
  /** Set when the path (or a symlink it goes through) leaves the project. */
  escapes: boolean;
  /** What is there: a regular file, a folder, something else (FIFO, device, socket), or nothing. */
  type: 'file' | 'dir' | 'other' | 'missing';
}

// The real path of `absolute`, or for a path that does not exist yet, of its nearest existing
// ancestor with the rest appended: a memory path through a symlinked folder is caught before
// anything is written there.
function realOf(absolute: string): string {
  let current = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute;
      rest.push(current.slice(parent.length).replace(/^[\\/]/, ''));
      current = parent;
    }
  }
}

const realRoots = new Map<string, string>();

function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = realOf(root);
    realRoots.set(root, real);
  }
  return real;
}

/**
 * The one path resolver of the format: a path is relative to the file that names it, and stays in
 * the project by real path (symlinks resolved; for a path that does not exist yet, its nearest
 * existing ancestor). Every path a YAML file names (env_file, instruction_file, module, memory
 * path, script, cassette, working folders) goes through here, in validate and in run alike.
 */
export function resolveProjectPath(root: string, fromFile: string, written: string): ResolvedPath {
  const absolute = resolve(dirname(fromFile), written);
  if (!isInside(root, absolute))
    return { absolute, exists: existsSync(absolute), escapes: true, type: 'missing' };
  let type: ResolvedPath['type'] = 'missing';
  try {
    const info = statSync(absolute);
    type = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
  } catch {
    type = 'missing';
  }
  const escapes = !isInside(realRoot(root), realOf(absolute));
  return { absolute, exists: type !== 'missing', escapes, type };
}

/**
 * For a path that does not exist yet (a sessions folder, a cassette to record), the nearest
 * existing ancestor when it is not a folder: what stops the path from ever being made.
 */
export function blockingAncestor(absolute: string): string | undefined {
  for (let dir = dirname(absolute); ; dir = dirname(dir)) {
    let isFolder: boolean;
    try {
      isFolder = statSync(dir).isDirectory();
    } catch {
      if (dirname(dir) === dir) return undefined;
      continue; // missing, or under a file (ENOTDIR): look further up
    }
    return isFolder ? undefined : dir;
  }
}

/** The largest file the format reads besides YAML documents (.env, instructions, scripts, cassettes). */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

/** Why a path may not be read; undefined when it may. */
export function unreadableReason(resolved: ResolvedPath, maxBytes = MAX_READ_BYTES): string | undefined {
  if (resolved.escapes) return 'is outside the project folder';
  if (resolved.type === 'missing') return 'does not exist';
  if (resolved.type === 'dir') return 'is a folder, not a file';
  if (resolved.type === 'other') return 'is not a regular file';
  const size = statSync(resolved.absolute).size;
  if (size > maxBytes)
    return `is ${(size / 1024 / 1024).toFixed(1)} MiB; the limit is ${maxBytes / 1024 / 1024} MiB`;
  return undefined;
}

/**
 * Reads a regular file of at most `maxBytes`, never blocking on a FIFO and never reading more than
 * the cap (a file that grows while read is cut off and refused). Throws with the reason.
 */
export function readRegularFile(absolute: string, maxBytes = MAX_READ_BYTES): string {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const fd = openSync(absolute, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error(`${absolute} is not a regular file`);
    if (info.size > maxBytes) throw new Error(`${absolute} is larger than ${maxBytes} bytes`);
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) throw new Error(`${absolute} changed while it was read`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Resolves a path written in `fromFile` and reads it, throwing an error that says why it cannot. */
export function readProjectFile(
  root: string,
  fromFile: string,
  written: string,
  what: string,
  maxBytes = MAX_READ_BYTES,
): string {
  const resolved = resolveProjectPath(root, fromFile, written);
  const reason = unreadableReason(resolved, maxBytes);
  if (reason) throw new Error(`${what} \`${written}\` ${reason}`);
  return readRegularFile(resolved.absolute, maxBytes);
}

/** A path for messages: relative to the root with `/`, or absolute when outside. */
export function displayPath(root: string, absolute: string): string {
  return isInside(root, absolute) ? relative(root, absolute).split(sep).join('/') : absolute;
}
