import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Roots } from './confined-path.js';

/** Arguments of a file tool that hold a path it resolves from `root` (see {@link pathReadings}). */
export interface PathArguments {
  /** The top-level argument names holding a path. */
  names: readonly string[];
  /** The tool's folder, or folders (relative paths start in the first). */
  root: Roots;
  /**
   * Whether the file system under the first root compares names without case (macOS and Windows
   * by default), so rules match them without case too: `secret/*` then also matches `SECRET/a`,
   * which opens the same file. Probed from the file system when unset (see {@link foldsCase}).
   */
  caseInsensitive?: boolean;
  /** The values are what the tool opened (real, relative to the first root): read as they are, not resolved again. */
  resolved?: boolean;
}

// The real path of `target`, or of its nearest existing folder with the rest joined as written
// (a file about to be written); undefined when not even the file system's root resolves.
function realOrNearest(target: string): string | undefined {
  const missing: string[] = [];
  for (let at = target; ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync(at), ...missing.reverse());
    } catch {
      if (path.dirname(at) === at) return undefined;
      missing.push(path.basename(at));
    }
  }
}

function relative(base: string, target: string): string {
  return path.relative(base, target).split(path.sep).join('/') || '.';
}

/**
 * The path a file tool will use for `value`, as approval rules read it: relative to the first
 * root, once with `.`, `..`, repeated slashes and an absolute spelling resolved, once more with
 * symbolic links followed. `./secret/a`, `notes/../secret/a`, `/project/secret/a` and, through
 * a link `notes/s -> ../secret`, `notes/s/a` all read `secret/a`.
 *
 * @example
 * pathReadings('/work/project', './notes//a.md'); // ['notes/a.md']
 */
export function pathReadings(roots: Roots, value: string): string[] {
  const base = typeof roots === 'string' ? roots : roots[0];
  if (base === undefined) return [];
  const lexical = path.resolve(base, value);
  const readings = [relative(path.resolve(base), lexical)];
  const realBase = realOrNearest(path.resolve(base));
  const real = realOrNearest(lexical);
  if (realBase !== undefined && real !== undefined) readings.push(relative(realBase, real));
  return [...new Set(readings)];
}

/**
 * How approval rules read a real path a file tool opened (absolute): relative to the first root's
 * real path, as {@link pathReadings} reads it once links are followed.
 */
export function openedPathReading(roots: Roots, real: string): string | undefined {
  const base = typeof roots === 'string' ? roots : roots[0];
  const realBase = base === undefined ? undefined : realOrNearest(path.resolve(base));
  return realBase === undefined ? undefined : relative(realBase, real);
}

const folding = new Map<string, boolean>();

function flipped(name: string): string {
  return [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

// Whether `name` in `folder`, spelt with its case flipped, is the same file; undefined when the
// name has no case to flip or is gone.
function sameWhenFlipped(folder: string, name: string): boolean | undefined {
  const other = flipped(name);
  if (other === name) return undefined;
  try {
    const one = lstatSync(path.join(folder, name));
    const two = lstatSync(path.join(folder, other), { throwIfNoEntry: false });
    return two !== undefined && two.dev === one.dev && two.ino === one.ino;
  } catch {
    return undefined;
  }
}

/**
 * Whether the file system holding `folder` compares names without case: probed once per folder
 * by looking an entry (or the folder itself) up with its case flipped. Where nothing can be
 * probed, the platform's default: without case on macOS and Windows.
 *
 * @example
 * foldsCase('/Users/ada/project'); // true on a default macOS disk
 */
export function foldsCase(folder: string): boolean {
  // Asked on every call of a file tool a rule matches: known folders cost no system call.
  const known = folding.get(folder);
  if (known !== undefined) return known;
  const real = realOrNearest(path.resolve(folder)) ?? path.resolve(folder);
  let answer: boolean | undefined;
  try {
    // Entries first: the folder's own name lives on the file system above it when it is a mount.
    for (const name of readdirSync(real).slice(0, 64)) {
      answer = sameWhenFlipped(real, name);
      if (answer !== undefined) break;
    }
  } catch {
    // Not a folder (yet): its own name, or the platform's default.
  }
  answer ??= sameWhenFlipped(path.dirname(real), path.basename(real));
  answer ??= process.platform === 'darwin' || process.platform === 'win32';
  folding.set(folder, answer);
  return answer;
}
