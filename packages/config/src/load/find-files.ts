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
  /**
   * Files (absolute, sorted) a pattern would match but for `.yml` in place of its `.yaml`
   * (`agents/bot.yml`): not read, and worth telling the author about.
   */
  strays: string[];
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
  include = include.map(normalised);
  exclude = exclude.map(normalised);
  const included = picomatch([...include]);
  const excluded = exclude.length > 0 ? picomatch([...exclude]) : () => false;
  const found = new Map<string, string>();
  const linksOut: string[] = [];
  let searches = 0;

  const wanted = (rel: string) => included(rel) && !excluded(rel);
  const twins = include.filter((p) => p.endsWith('.yaml')).map((p) => `${p.slice(0, -'.yaml'.length)}.yml`);
  const twinMatch = twins.length > 0 ? picomatch(twins) : () => false;
  const stray = (rel: string) => rel.endsWith('.yml') && twinMatch(rel) && !excluded(rel);
  const strays: string[] = [];
  // An excluded folder is not searched at all (`exclude: [agents/old]` leaves out what it holds).
  const folderExcluded = (rel: string) => excluded(rel) || excluded(`${rel}/`);
  const dotsNamed = include.some((pattern) => /(^|\/)\.[^./]/.test(pattern));
  // Whether a folder outside holds, at its top, a file the patterns want: one listing, no search.
  const holdsWanted = async (dir: string, rel: string) =>
    (await readdir(dir).catch(() => [] as string[])).some((name) => wanted(`${rel}/${name}`));

  // Keyed by the real file: one reached both directly and through a link is read once.
  const keep = (real: string, path: string) => {
    const first = found.get(real);
    if (first === undefined || path < first) found.set(real, path);
  };

  // A link, or a pattern's base (`path` absolute, `rel` relative to the root with `/`): followed
  // when it stays inside the project.
  async function follow(path: string, rel: string, above: ReadonlySet<string>): Promise<void> {
    const target = await realpath(path).catch(() => undefined);
    if (target === undefined) return;
    const kind = await stat(target).catch(() => undefined);
    const isDir = kind?.isDirectory() ?? false;
    const isFile = kind?.isFile() ?? false;
    if (!isInside(realRoot, target)) {
      if (isFile ? wanted(rel) : isDir && (await holdsWanted(target, rel))) linksOut.push(path);
    } else if (isDir) {
      if (!folderExcluded(rel)) await search(path, rel, above);
    } else if (isFile && wanted(rel)) keep(target, path);
  }

  // `above`: the real folders this one was reached through. A folder reached twice by different
  // ways is searched each way (a file's path is then the least of its paths, whatever came
  // first), but never inside itself: a link to an ancestor ends there. A plain file costs no
  // call of its own: its real path is its real folder's and its name.
  async function search(dir: string, rel: string, above: ReadonlySet<string>): Promise<void> {
    const real = await realpath(dir).catch(() => undefined);
    if (real === undefined || above.has(real) || ++searches > MAX_SEARCHES) return;
    const path = new Set(above).add(real);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    const below: Array<Promise<void>> = [];
    for (const entry of entries) {
      const name = entry.name;
      // Wildcards match no dot-name (`dot: false`): a dot-folder is searched only when a pattern
      // names one; the matcher decides for each file.
      if (SKIPPED.has(name) || (name.startsWith('.') && !dotsNamed)) continue;
      const relPath = rel === '' ? name : `${rel}/${name}`;
      if (entry.isFile()) {
        if (wanted(relPath)) keep(join(real, name), join(dir, name));
        else if (stray(relPath)) strays.push(join(dir, name));
      } else if (entry.isDirectory()) {
        if (!folderExcluded(relPath)) below.push(search(join(dir, name), relPath, path));
      } else if (entry.isSymbolicLink()) below.push(follow(join(dir, name), relPath, path));
    }
    await Promise.all(below);
  }

  await Promise.all(
    bases(include).map((base) =>
      base === '' ? search(root, '', NONE) : follow(join(root, base), base, NONE),
    ),
  );
  return {
    files: [...found.values()].sort(),
    linksOut: linksOut.sort(),
    strays: [...new Set(strays)].sort(),
  };
}

// A pattern as paths are matched against it: `a//b` is `a/b`, `./a` is `a`.
function normalised(pattern: string): string {
  return pattern.replace(/\/{2,}/g, '/').replace(/^(\.\/)+/, '');
}

// The folders the patterns can match under (their literal leading parts), none under another.
function bases(patterns: readonly string[]): string[] {
  const all = [...new Set(patterns.map((p) => picomatch.scan(p).base.replace(/\/+$/, '')))].sort();
  return all.filter((base, i) => !all.slice(0, i).some((b) => b === '' || base.startsWith(`${b}/`)));
}
