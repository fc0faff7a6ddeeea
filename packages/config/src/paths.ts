import { existsSync, realpathSync } from 'node:fs';
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
}

/** Resolves a path relative to the file that names it, and checks it stays in the project. */
export function resolveProjectPath(root: string, fromFile: string, written: string): ResolvedPath {
  const absolute = resolve(dirname(fromFile), written);
  const exists = existsSync(absolute);
  let escapes = !isInside(root, absolute);
  if (!escapes && exists) {
    // A symlink inside the project may still point outside it.
    try {
      escapes = !isInside(realpathSync(root), realpathSync(absolute));
    } catch {
      escapes = true;
    }
  }
  return { absolute, exists, escapes };
}

/** A path for messages: relative to the root with `/`, or absolute when outside. */
export function displayPath(root: string, absolute: string): string {
  return isInside(root, absolute) ? relative(root, absolute).split(sep).join('/') : absolute;
}
