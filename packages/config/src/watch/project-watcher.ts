import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { type Matcher, picomatch } from '../picomatch.js';
import { PROJECT_FILE } from '../project-root.js';

/** Which files of the project a reload depends on; refreshed after every load. */
export interface WatchScope {
  include: readonly string[];
  exclude: readonly string[];
  /** Files the specs point at (module tools, instruction files, scripts). */
  referenced: ReadonlySet<string>;
  /** The `.env` file name (relative to the root). */
  envFile: string;
}

const IGNORED_DIRS = new Set(['node_modules', '.git', '.agentctl']);
const CODE = /\.(m|c)?[jt]s$/;

/**
 * Watches a project folder and calls `onChange` with the changed files, `debounceMs` after the
 * last relevant event. Chokidar watches the whole folder (no globs in it): which files count is
 * decided here, from the project's own include/exclude globs and the files its specs name, so
 * every editor save style (in place, temp+rename, rename to backup, delete+recreate) is seen as a
 * change to the file itself.
 */
export class ProjectWatcher {
  readonly #watcher: FSWatcher;
  readonly #pending = new Set<string>();
  #timer?: NodeJS.Timeout;
  #include: Matcher = () => false;
  #exclude: Matcher = () => false;
  #scope: WatchScope = { include: [], exclude: [], referenced: new Set(), envFile: '.env' };
  #codeDirs: string[] = [];
  /** The fixed start of each include glob (`agents` of `agents/**\/*.yaml`; '' for `**\/*.yaml`). */
  #bases: string[] = [];
  /** The referenced files, and the real path of each that is a symlink, as paths under the root. */
  #referenced = new Set<string>();
  /** Files outside the folder that the project reads (a helper a module imports), watched one by one. */
  #outside = new Set<string>();
  /** The folder really watched: events name real paths, turned back into paths under `root`. */
  readonly #realRoot: string;
  /** Resolves once the initial scan is done and events are reported. */
  readonly ready: Promise<void>;

  constructor(
    readonly root: string,
    readonly debounceMs: number,
    readonly onChange: (files: string[]) => void,
    /** A path that cannot be watched (a symlink loop, the system's limit of watches reached). */
    readonly onError: (error: Error) => void = () => undefined,
  ) {
    this.#realRoot = realPath(root) ?? root;
    const realRoot = this.#realRoot;
    this.#watcher = watch(realRoot, {
      ignoreInitial: true,
      // The loader reads nothing through a symlinked folder, and a link may lead out of the project
      // or back into it (a loop, watched again at every level until ELOOP): links are watched as
      // links. A referenced file behind one is watched at its real path (see setScope).
      followSymlinks: false,
      // The debounce already folds unlink+add of a save together; chokidar's own folding loses track
      // of a file after a rename-to-backup save on Linux.
      atomic: false,
      ignored: (path) =>
        relative(realRoot, path)
          .split(sep)
          .some((part) => IGNORED_DIRS.has(part)),
    });
    this.ready = new Promise((resolve) => this.#watcher.once('ready', () => resolve()));
    // Unheard, an 'error' event is thrown: one symlink loop anywhere in the folder would end the process.
    this.#watcher.on('error', (error) => this.onError(error as Error));
    for (const event of ['add', 'change', 'unlink'] as const)
      this.#watcher.on(event, (path: string) => this.#event(path));
    // Chokidar's own events miss a file deleted and at once recreated (the folder listing looks
    // unchanged and the file's watcher followed the old inode): raw fs.watch events catch it.
    this.#watcher.on('raw', (_event, name, details) => {
      const watched = (details as { watchedPath?: string } | undefined)?.watchedPath;
      if (typeof name !== 'string' || name === '' || !watched) return;
      this.#event(basename(watched) === name ? watched : join(watched, name));
    });
    // A folder renamed or removed takes its files with it (a new one brings `add` events of its own).
    this.#watcher.on('unlinkDir', (path: string) => this.#event(path, true));
  }

  /** Sets the globs and referenced files that decide which changes count. */
  setScope(scope: WatchScope): void {
    this.#scope = scope;
    this.#include = picomatch([...scope.include]);
    this.#bases = scope.include.map((glob) => picomatch.scan(glob).base.replace(/\/+$/, ''));
    this.#exclude = scope.exclude.length > 0 ? picomatch([...scope.exclude]) : () => false;
    this.#referenced = new Set(scope.referenced);
    for (const file of scope.referenced) {
      const real = realPath(file);
      if (real) this.#referenced.add(this.#underRoot(real));
    }
    // A module tool's helpers sit beside it: code files under its folder count too.
    this.#codeDirs = [...this.#referenced].filter((f) => CODE.test(f)).map((f) => dirname(f) + sep);
    const outside = new Set(
      [...this.#referenced].map((f) => realPath(f) ?? f).filter((f) => !inside(this.#realRoot, f)),
    );
    const gone = [...this.#outside].filter((f) => !outside.has(f));
    if (gone.length > 0) this.#watcher.unwatch(gone);
    const added = [...outside].filter((f) => !this.#outside.has(f));
    if (added.length > 0) this.#watcher.add(added);
    this.#outside = outside;
  }

  /** True when a change to `path` (absolute) can change the project. */
  relevant(path: string, isDir = false): boolean {
    // A file outside the folder counts only when the project reads it (a module's helper).
    if (this.#referenced.has(path)) return true;
    const rel = relative(this.root, path).split(sep).join('/');
    if (rel.startsWith('..') || rel === '') return false;
    const name = basename(rel);
    // Editor droppings: emacs locks, vim's write test and swap files, backups.
    if (name.startsWith('.#') || name === '4913' || /\.sw[a-p]$|~$/.test(name)) return false;
    if (isDir) return this.#mayHold(rel, path);
    if (rel === PROJECT_FILE || rel === this.#scope.envFile) return true;
    if (this.#referenced.has(path)) return true;
    if (this.#include(rel) && !this.#exclude(rel)) return true;
    return CODE.test(name) && this.#codeDirs.some((dir) => path.startsWith(dir));
  }

  // A folder, or a link that may lead to one, counts when project files can be under it: it is
  // inside an include glob's fixed start or holds it, or holds a file the project reads or a
  // module's folder. A link elsewhere (a test fixture beside the sources) is no change to the project.
  #mayHold(rel: string, path: string): boolean {
    const below = (outer: string, inner: string) =>
      outer === '' || inner === outer || inner.startsWith(`${outer}/`);
    if (this.#bases.some((base) => below(base, rel) || below(rel, base))) return true;
    const dir = path + sep;
    for (const file of this.#referenced) if (file.startsWith(dir)) return true;
    return this.#codeDirs.some((code) => code.startsWith(dir) || dir.startsWith(code));
  }

  /** Stops watching. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#watcher.close();
  }

  // A symlink made or removed: it is watched as a link (an add or unlink of one path, whatever it
  // leads to), but the loader reads the project files behind one to a folder, so it counts as a
  // folder does. A removed link is known by the files the last build read through it.
  #linkToFiles(path: string): boolean {
    try {
      if (lstatSync(path).isSymbolicLink()) return true;
    } catch {
      const below = path + sep;
      for (const file of this.#scope.referenced) if (file.startsWith(below)) return true;
    }
    return false;
  }

  // A path under the real root, as the same path under `root` (one outside it, as it is).
  #underRoot(path: string): string {
    return inside(this.#realRoot, path) ? join(this.root, relative(this.#realRoot, path)) : path;
  }

  #event(real: string, isDir = false): void {
    const path = this.#underRoot(real);
    if (!this.relevant(path, isDir || this.#linkToFiles(path))) return;
    this.#pending.add(path);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      const files = [...this.#pending].sort();
      this.#pending.clear();
      this.onChange(files);
    }, this.debounceMs);
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
