import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** The real path of the folder tools are confined to; fails clearly when it does not exist. */
export async function realRoot(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch {
    throw new Error(`the folder ${root} does not exist`);
  }
}

/**
 * Resolves `requested` (relative to the root) to a real path inside the root. Refuses `..`
 * escapes, absolute paths elsewhere, and symbolic links that lead outside.
 */
export async function confinedPath(root: string, requested: string): Promise<string> {
  const base = await realRoot(root);
  const lexical = path.resolve(base, requested);
  if (!isInside(base, lexical)) throw new Error(`path "${requested}" is outside the allowed folder`);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`path "${requested}" does not exist`);
    throw new Error(`path "${requested}" cannot be read: ${(error as Error).message}`);
  }
  if (!isInside(base, real)) throw new Error(`path "${requested}" leads outside the allowed folder`);
  return real;
}

/** True when `candidate` is `base` or below it. */
export function isInside(base: string, candidate: string): boolean {
  const relative = path.relative(base, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
