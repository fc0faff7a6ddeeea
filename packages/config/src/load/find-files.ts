import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside } from '../paths.js';
import { picomatch } from '../picomatch.js';

/** The include patterns of a project without `include`. */
export const DEFAULT_INCLUDE: readonly string[] = ['agents/**/*.yaml'];

/** The patterns of the files holding `kind: test` documents, in a project without `tests`. */
export const DEFAULT_TESTS: readonly string[] = ['tests/**/*.yaml'];

/** What {@link findFiles} found. */
export interface FoundFiles {
  /** Absolute paths, as reached (a symlinked file by its link), sorted; one path per real file. */
  files: string[];
  /** Symlinks (absolute, sorted) out of the project to a file the patterns want, or to a folder with one at its top: not read. */
  linksOut: string[];
}

const NONE: ReadonlySet<string> = new Set();
// A bound on folder listings: links can make a few folders reachable in very many ways.
const MAX_SEARCHES = 20_000;
// Never searched, whatever the patterns say.
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * The files matched by `include` minus `exclude`, absolute and sorted. Symlinks inside the project
 * are followed, to a file or a folder; a link that leads out of it is reported, never read through
 * (so a link to `/` cannot make the search crawl the disk), and a link to a folder above it (a
 * loop) is not followed.
 */
export async function findFiles(
  root: string,
  include: readonly string[],
  exclude: readonly string[] = [],
): Promise<FoundFiles> {
  const realRoot = await realpath(root).catch(() => root);
  const included = picomatch([...include]);
  const excluded = exclude.length > 0 ? picomatch([...exclude]) : () => false;
  const found = new Map<string, string>();
  const linksOut: string[] = [];
  let searches = 0;

  const wanted = (rel: string) => included(rel) && !excluded(rel);
  // Whether a folder outside holds, at its top, a file the patterns want: one listing, no search.
  const holdsWanted = async (dir: string, rel: string) =>
    (await readdir(dir).catch(() => [] as string[])).some((name) => wanted(`${rel}/${name}`));

  // A file or folder as reached (`path` absolute, `rel` relative to the root with `/`), known to
  // be a folder or not as its listing said (a link is followed here).
  async function visit(
    path: string,
    rel: string,
    entry: Dirent | undefined,
    above: ReadonlySet<string>,
  ): Promise<void> {
    let isDir = entry?.isDirectory() ?? false;
    let isFile = entry?.isFile() ?? false;
    if (entry === undefined || entry.isSymbolicLink()) {
      const target = await realpath(path).catch(() => undefined);
      if (target === undefined) return;
      const kind = await stat(target).catch(() => undefined);
      isDir = kind?.isDirectory() ?? false;
      isFile = kind?.isFile() ?? false;
      if (!isInside(realRoot, target)) {
        if (isFile ? wanted(rel) : isDir && (await holdsWanted(target, rel))) linksOut.push(path);
        return;
      }
    }
    if (isDir) await search(path, rel, above);
    else if (isFile && wanted(rel)) {
      // Keyed by the real file: one reached both directly and through a link is read once.
      const real = await realpath(path).catch(() => path);
      const first = found.get(real);
      if (first === undefined || path < first) found.set(real, path);
    }
  }

  // `above`: the real folders this one was reached through. A folder reached twice by different
  // ways is searched each way (a file's path is then the least of its paths, whatever came
  // first), but never inside itself: a link to an ancestor ends there.
  async function search(dir: string, rel: string, above: ReadonlySet<string>): Promise<void> {
    const real = await realpath(dir).catch(() => undefined);
    if (real === undefined || above.has(real) || ++searches > MAX_SEARCHES) return;
    const path = new Set(above).add(real);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    await Promise.all(
      entries
        // Wildcards match no dot-name (as `dot: false`); a pattern's own base may name one.
        .filter((entry) => !SKIPPED.has(entry.name) && !entry.name.startsWith('.'))
        .map((entry) =>
          visit(join(dir, entry.name), rel === '' ? entry.name : `${rel}/${entry.name}`, entry, path),
        ),
    );
  }

  await Promise.all(
    bases(include).map((base) =>
      base === '' ? search(root, '', NONE) : visit(join(root, base), base, undefined, NONE),
    ),
  );
  return { files: [...found.values()].sort(), linksOut: linksOut.sort() };
}

// The folders the patterns can match under (their literal leading parts), none under another.
function bases(patterns: readonly string[]): string[] {
  const all = [...new Set(patterns.map((p) => picomatch.scan(p).base.replace(/\/+$/, '')))].sort();
  return all.filter((base, i) => !all.slice(0, i).some((b) => b === '' || base.startsWith(`${b}/`)));
}
