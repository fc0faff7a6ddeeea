import { glob } from 'tinyglobby';

/** The include patterns of a project without `include`. */
export const DEFAULT_INCLUDE: readonly string[] = ['agents/**/*.yaml'];

/** The files matched by `include` minus `exclude`, absolute and sorted. */
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
  return files.sort();
}
