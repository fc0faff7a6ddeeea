import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Roots } from './confined-path.js';

/** Arguments of a file tool that hold a path it resolves from `root` (see {@link pathReadings}). */
export interface PathArguments {
  /** The top-level argument names holding a path. */
  names: readonly string[];
  /** The tool's folder, or folders (relative paths start in the first). */
  root: Roots;
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
