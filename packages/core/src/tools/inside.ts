import path from 'node:path';

/** True when `candidate` is `base` or below it. */
export function isInside(base: string, candidate: string): boolean {
  const relative = path.relative(base, candidate);
  // `..notes.md` is a name inside; only `..` itself or `../...` leaves.
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}
