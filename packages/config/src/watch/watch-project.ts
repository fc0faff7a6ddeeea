import { join, relative } from 'node:path';
import { type CompileOptions, compileProject, type Runtime } from '../compile/compile-project.js';
import { withModuleLoader, withoutModuleLoader } from '../compile/import-module.js';
import type { MadeMemory } from '../compile/make-memory.js';
import { outsideGuard } from '../compile/stray-failures.js';
import { type Diagnostic, diagnostic, FILE_START } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { scopeDiagnostics } from '../load/agent-reach.js';
import { globProblem } from '../load/check-globs.js';
import { DEFAULT_INCLUDE } from '../load/find-files.js';
import { type LoadedProject, loadProject } from '../load/load-project.js';
import type { Registry } from '../registry.js';
import type { ProjectSpec } from '../spec-types.js';
import { agentFingerprints, diffAgents, fileStamp } from './agent-changes.js';
import { Generation } from './generation.js';
import { ModuleHost } from './module-host.js';
import { moduleLoadLimitMs } from './module-load-limit.js';
import type { ProjectWatcher } from './project-watcher.js';

/** Options of {@link watchProject}. */
export interface WatchOptions {
  /** The project folder (`-C DIR`), instead of looking upward from `dir` for agentctl.yaml. */
  project?: string;
  /** Milliseconds of quiet after the last change before reloading. Default 150. */
  debounceMs?: number;
  registry?: Registry;
  env?: Env;
  /** Compile only these agents (and what they use). Default: every agent. */
  agents?: CompileOptions['agents'];
  /** A model every LLM agent uses instead of its own. */
  model?: string;
  /**
   * A model lacking its API key fails the build (`CompileOptions.requireKeys`: `run --watch`), or
   * with `'warn'` is a warning of each build (`dev`, `serve --watch`).
   */
  requireKeys?: CompileOptions['requireKeys'];
  /**
   * Load module tools and middleware in a worker per generation, terminated with it, so edited
   * modules do not pile up in memory. Default true; false imports them in this process.
   */
  isolateModules?: boolean;
  /**
   * Milliseconds a module tool or middleware may take to import in its worker before the reload
   * fails on it (an endless loop at its top level, an await that never settles). Default 30,000.
   */
  moduleLoadLimitMs?: number;
  /**
   * Called when a path in the folder cannot be watched (a symlink loop, the system's limit of file
   * watches reached): saves there are not seen, everything else goes on. Default: ignored.
   */
  onWatchError?: (error: Error) => void;
}

/** Called with each new generation once it is live, and with the warnings of its build. */
export type OnGeneration = (generation: Generation, warnings: Diagnostic[]) => void;
/** Called once per change that leaves the project broken; the last good generation keeps serving. */
export type OnDiagnostics = (diagnostics: Diagnostic[], files: readonly string[]) => void;

/** A project being watched: its live generation and the way to stop. */
export interface ProjectWatch {
  root: string;
  /** The live generation (undefined while the project has never built cleanly). */
  readonly current: Generation | undefined;
  /** A lease on the live generation for one run; call `release` when the run ends. */
  acquire(): { generation: Generation; release(): void } | undefined;
  /** Reloads now, without waiting for a change. Resolves when that reload is done. */
  reload(files?: readonly string[]): Promise<void>;
  /** Stops watching and disposes every generation, runs in flight or not. */
  close(): Promise<void>;
}

/**
 * Watches a project and keeps a compiled generation of it live: every change re-runs the whole
 * pipeline; a broken change is reported (once) and the last good generation keeps serving; a good
 * one is built completely, then swapped in, and the old one is disposed when its last run ends.
 *
 * @example
 * const watch = await watchProject('.', (g) => console.log(`generation ${g.id}`), (ds) => ds.forEach((d) => console.error(formatDiagnostic(d))));
 * const lease = watch.acquire();
 * const agent = lease?.generation.runtime.agents.get('hello');
 * try { if (agent) await new Runner({ agent }).run({ input: 'hi' }).result; } finally { lease?.release(); }
 */
export async function watchProject(
  dir: string,
  onGeneration: OnGeneration,
  onDiagnostics: OnDiagnostics,
  options: WatchOptions = {},
): Promise<ProjectWatch> {
  let current: Generation | undefined;
  let fingerprints = new Map<string, string>();
  let nextId = 1;
  const live = new Set<Generation>();
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  // A project with module tools gets its next worker started (and warmed up) ahead of the
  // reload that will use it, which takes the worker's start-up out of the save-to-live time.
  let spare: ModuleHost | undefined;
  // Content of the files the last build read: an event that changed none of them (a late duplicate,
  // a save of the same text) is not a change, so it neither rebuilds nor reports again.
  let contents = new Map<string, string | undefined>();
  // Stops the build in progress while it waits on a module import: a newer save replaces it.
  let supersede: (() => void) | undefined;
  // What each module tool or middleware imports (helpers in any folder of the project), as its
  // worker saw them: watched like the module itself, so a save of a helper reloads too. A failed
  // build keeps the files known before it, so the save that fixes a broken helper is seen.
  let moduleImports = new Map<string, ReadonlySet<string>>();
  // The live generation's in-process memories, handed to the next build (their sessions live in them).
  let memories: ReadonlyMap<string, MadeMemory> = new Map();

  const first = await build([]);
  // chokidar loads only when something watches: `agentctl run` imports this package too.
  const { ProjectWatcher: Watcher } = await import('./project-watcher.js');
  const watcher: ProjectWatcher = new Watcher(
    first.root,
    options.debounceMs ?? 150,
    (files) => {
      // A module stuck in its import would hold this save (and every later one) back for good.
      supersede?.();
      void reload(files);
    },
    options.onWatchError,
  );
  watcher.setScope(first.scope);
  await watcher.ready;

  async function build(files: readonly string[]) {
    // Hashed before reading, so a save landing while the build reads is seen as a change after it.
    const seen = new Map<string, string | undefined>();
    for (const file of [...contents.keys(), ...files]) seen.set(file, fileStamp(file));
    let project: LoadedProject;
    try {
      project = await loadProject({
        cwd: dir,
        project: options.project,
        env: options.env,
        registry: options.registry,
      });
    } catch (error) {
      const d = diagnostic(dir, FILE_START, 'internal-error', (error as Error).message);
      onDiagnostics([d], files);
      return { root: current?.runtime.root ?? dir, scope: emptyScope() };
    }
    const referenced = new Set<string>();
    const prints = agentFingerprints(project.root, project.specs, referenced, moduleImports);
    const envPath = join(
      project.root,
      (project.specs.project?.spec as ProjectSpec | undefined)?.env_file ?? '.env',
    );
    const helpers = [...moduleImports.values()].flatMap((imported) => [...imported]);
    for (const file of [...project.files, ...referenced, envPath, ...helpers])
      if (!seen.has(file)) seen.set(file, fileStamp(file));
    const built = contents;
    contents = seen;
    const spec = project.specs.project?.spec as ProjectSpec | undefined;
    const scope = {
      // Patterns the loader refused never reach the matcher here either.
      include: (spec?.include ?? DEFAULT_INCLUDE).filter((p) => globProblem(p) === undefined),
      exclude: (spec?.exclude ?? []).filter((p) => globProblem(p) === undefined),
      // A project file behind a symlink is watched at its real path too (setScope resolves each).
      referenced: new Set([...referenced, ...project.files, ...helpers]),
      envFile: spec?.env_file ?? '.env',
    };
    // Watching one agent (`dev AGENT`, `run --watch`): an error it does not reach is a warning, as for `run`.
    const only = options.agents?.length === 1 ? options.agents[0] : undefined;
    const scoped =
      only === undefined
        ? project
        : { ...project, diagnostics: scopeDiagnostics(project, only, options.model) };
    const made = await compile(scoped);
    if (made.superseded) {
      // A newer save is queued behind this build: it reports, not this one, and it must not be
      // skipped as unchanged against content this build read but never made live.
      contents = built;
      await made.runtime?.dispose();
      return { root: project.root, scope };
    }
    const errors = made.diagnostics.filter((d) => d.severity === 'error');
    const good = made.runtime !== undefined && errors.length === 0;
    moduleImports = good ? new Map(made.imports) : new Map([...moduleImports, ...(made.imports ?? [])]);
    for (const imported of moduleImports.values())
      for (const file of imported) {
        scope.referenced.add(file);
        // Found by this build, so not hashed before it read them: their next save always reloads.
        if (!contents.has(file)) contents.set(file, UNREAD);
      }
    if (!made.runtime || errors.length > 0) {
      await made.runtime?.dispose();
      onDiagnostics(made.diagnostics, files);
      return { root: project.root, scope };
    }
    memories = made.memories ?? memories;
    const generation = new Generation(nextId++, made.runtime, diffAgents(fingerprints, prints), files, (g) =>
      live.delete(g),
    );
    fingerprints = prints;
    live.add(generation);
    const previous = current;
    current = generation;
    void previous?.retire();
    onGeneration(generation, made.diagnostics);
    return { root: project.root, scope };
  }

  async function compile(project: LoadedProject): Promise<{
    runtime?: Runtime;
    diagnostics: Diagnostic[];
    superseded?: boolean;
    /** What each module imported, as its worker saw it. */
    imports?: ReadonlyMap<string, ReadonlySet<string>>;
    /** The build's in-process memories, for the build after it. */
    memories?: ReadonlyMap<string, MadeMemory>;
  }> {
    const carried = { from: memories, made: new Map<string, MadeMemory>() };
    const compileOptions: CompileOptions = {
      registry: options.registry,
      env: options.env,
      agents: options.agents,
      model: options.model,
      carriedMemories: carried,
      requireKeys: options.requireKeys,
    };
    if (options.isolateModules === false)
      return { ...(await compileProject(project, compileOptions)), memories: carried.made };
    let host: ModuleHost | undefined;
    let loading = 0;
    let superseded = false;
    const limitMs = options.moduleLoadLimitMs ?? moduleLoadLimitMs();
    const loader = async (path: string) => {
      host ??= takeHost();
      loading++;
      try {
        return await host.importModuleWithin(path, limitMs, relative(project.root, path));
      } finally {
        loading--;
      }
    };
    supersede = () => {
      if (loading === 0) return;
      superseded = true;
      void host?.dispose();
    };
    const made: { runtime?: Runtime; diagnostics: Diagnostic[] } = await withModuleLoader(loader, () =>
      compileProject(project, compileOptions),
    )
      .catch(async (error: unknown) => {
        await host?.dispose();
        if (superseded) return { diagnostics: [] };
        throw error;
      })
      .finally(() => {
        supersede = undefined;
      });
    if (superseded) {
      await made.runtime?.dispose();
      await host?.dispose();
      return { diagnostics: [], superseded };
    }
    const imports = host?.imports;
    if (!made.runtime) {
      await host?.dispose();
      return { ...made, imports };
    }
    const runtime = made.runtime;
    host?.scrubLateFailures((text) => runtime.scrub?.(text) ?? text);
    return {
      imports,
      memories: carried.made,
      diagnostics: made.diagnostics,
      runtime: {
        ...runtime,
        async dispose() {
          try {
            await runtime.dispose();
          } finally {
            await host?.dispose();
          }
        },
      },
    };
  }

  function takeHost(): ModuleHost {
    // Made outside the compilation's scope, or each worker would keep the one before it alive; and
    // outside the module import that asked for it, or what the worker's messages run (a
    // middleware's next(), the model call in it) would count as that module's code.
    return withoutModuleLoader(() =>
      outsideGuard(() => {
        const host = spare ?? new ModuleHost();
        spare = closed ? undefined : new ModuleHost();
        return host;
      }),
    );
  }

  // Reloads run one after another: a change during a reload waits for it, then builds again.
  function reload(files: readonly string[] = []): Promise<void> {
    running = running.then(async () => {
      if (closed) return;
      if (files.length > 0 && files.every((f) => contents.has(f) && contents.get(f) === fileStamp(f))) return;
      try {
        const { scope } = await build(files);
        watcher.setScope(scope);
      } catch (error) {
        onDiagnostics([diagnostic(dir, FILE_START, 'internal-error', (error as Error).message)], files);
      }
    });
    return running;
  }

  return {
    root: first.root,
    get current() {
      return current;
    },
    acquire() {
      const generation = current;
      if (!generation) return undefined;
      return { generation, release: generation.acquire() };
    },
    reload,
    async close() {
      closed = true;
      // A reload stuck in a module's import would hold the close (and a Ctrl-C) for its whole limit.
      supersede?.();
      await watcher.close();
      await running;
      await spare?.dispose();
      await Promise.allSettled([...live].map((g) => g.dispose()));
    },
  };
}

// The content recorded for a file no build hashed before reading it: equal to no file's hash.
const UNREAD = '';

function emptyScope() {
  return { include: DEFAULT_INCLUDE, exclude: [], referenced: new Set<string>(), envFile: '.env' };
}
