import { glob } from 'tinyglobby';
import { resolveProjectPath } from '../paths.js';

/** The include patterns of a project without `include`. */
export const DEFAULT_INCLUDE: readonly string[] = ['agents/**/*.yaml'];

/** The patterns of the files holding `kind: test` documents, in a project without `tests`. */
export const DEFAULT_TESTS: readonly string[] = ['tests/**/*.yaml'];

/** The files matched by `include` minus `exclude`, absolute, really inside the project, and sorted. */
export async function findFiles(
  root: string,
  include: readonly string[],
  exclude: readonly string[] = [],
): Promise<string[]> {
  const files = await glob([...include], {
    cwd: root,
    ignore: [...exclude, '**/node_modules/**', '**/.git/**'],
    absolute: true,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: false,
  });
  // A symlinked file inside the project may point outside it: only files really inside are read.
  return files.filter((file) => !resolveProjectPath(root, file, file).escapes).sort();
}
