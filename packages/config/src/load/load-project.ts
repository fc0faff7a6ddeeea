import { existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { compareDiagnostics, type Diagnostic, diagnostic, FILE_START } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { projectEnvChecked } from '../env/project-env.js';
import { displayPath, isInside } from '../paths.js';
import { findProjectRoot, PROJECT_FILE } from '../project-root.js';
import type { Registry } from '../registry.js';
import { RULES } from '../rules/index.js';
import { loadCronParser } from '../rules/schedule-timing.js';
import type { ProjectSpec } from '../spec-types.js';
import { checkGlobs } from './check-globs.js';
import { checkModules } from './check-modules.js';
import { checkOfflineFiles } from './check-offline-files.js';
import { DEFAULT_INCLUDE, DEFAULT_TESTS, findFiles } from './find-files.js';
import { checkDocument, type IndexedEntry } from './index-documents.js';
import { ParseCache } from './parse-cache.js';
import { parseFile } from './parse-file.js';
import { indexEntries, type ProjectSpecs, type SpecEntry } from './project-specs.js';

/** Options of {@link loadProject}. */
export interface LoadOptions {
  /** Where to start looking for agentctl.yaml. Default `process.cwd()`. */
  cwd?: string;
  /** The project folder (`-C DIR`), instead of looking upward from `cwd`. */
  project?: string;
  /** Report only on these files (relative to `cwd`); the whole project is still read so references resolve. */
  paths?: string[];
  /** The environment for `${VAR}` checks. Default process.env, over the project's .env file. */
  env?: Env;
  /**
   * The registry the project will be compiled with: provider, built-in tool, middleware and memory
   * names and option shapes are checked against it. Without one, those names are not checked.
   */
  registry?: Registry;
  /**
   * Also read the files of `tests:` (default: the YAML files under tests/), so `kind: test` documents are
   * indexed and checked: `agentctl test` and `validate` do, a run has no use for them.
   */
  tests?: boolean;
  /** Also import module tools and middleware (in a worker that is then stopped) to check their exports. */
  checkModules?: boolean;
  /**
   * Keep parsed files in the project's `.agentctl/cache`, so an unchanged file is not parsed (nor
   * the YAML library loaded) again. Every check still runs on every load.
   */
  cache?: boolean;
}

/** A project read and checked: its files, its index and every problem found. */
export interface LoadedProject {
  root: string;
  /** Absolute path of agentctl.yaml, when there is one. */
  configFile?: string;
  /** Absolute paths of the YAML files read (agentctl.yaml first). */
  files: string[];
  specs: ProjectSpecs;
  /** Every named document and inline agent in file order, a name's later duplicates included. */
  entries: readonly SpecEntry[];
  /** Sorted by file and position. */
  diagnostics: Diagnostic[];
  /** The registry plugin names and options were checked against (none: they were not). */
  registry?: Registry;
}

/**
 * Finds, parses and checks a project: schema per document, then every semantic rule. Problems
 * in the files are diagnostics; this only throws for a bug in the loader itself.
 *
 * @example
 * const project = await loadProject({ cwd: process.cwd() });
 * for (const d of project.diagnostics) console.log(formatDiagnostic(d));
 */
export async function loadProject(options: LoadOptions = {}): Promise<LoadedProject> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const root = options.project ? resolve(cwd, options.project) : ((await findProjectRoot(cwd)) ?? cwd);
  const diagnostics: Diagnostic[] = [];
  const entries: IndexedEntry[] = [];
  const configPath = join(root, PROJECT_FILE);
  const configFile = existsSync(configPath) ? configPath : undefined;
  const cache = options.cache ? new ParseCache(root) : undefined;
  const read = async (absFile: string, projectFile: boolean) => {
    const parsed = await parseFile(absFile, displayPath(root, absFile), cache);
    diagnostics.push(...parsed.diagnostics);
    for (const doc of parsed.documents) {
      const checked = checkDocument(doc, { projectFile });
      diagnostics.push(...checked.diagnostics);
      entries.push(...checked.entries);
    }
  };
  if (configFile) await read(configFile, true);
  const projectEntry = entries.find((e) => e.kind === 'project' && e.valid);
  const project = projectEntry?.spec as ProjectSpec | undefined;
  const globs = checkGlobs(
    projectEntry,
    project?.include ?? DEFAULT_INCLUDE,
    project?.exclude ?? [],
    options.tests ? (project?.tests ?? DEFAULT_TESTS) : [],
  );
  diagnostics.push(...globs.diagnostics);
  const found = await findFiles(root, globs.include, globs.exclude);
  let files = found.files.filter((f) => f !== configFile);
  // Read for `test` and `validate` only: `run` never reads them.
  const testOnlyFiles = new Set<string>();
  const linksOut = new Set(found.linksOut);
  const testStrays: string[] = [];
  if (globs.tests.length > 0) {
    const tests = await findFiles(root, globs.tests, globs.exclude);
    testStrays.push(...tests.strays);
    for (const file of tests.files) if (file !== configFile && !files.includes(file)) testOnlyFiles.add(file);
    files = [...new Set([...files, ...tests.files.filter((f) => f !== configFile)])].sort();
    for (const link of tests.linksOut) linksOut.add(link);
  }
  // Told, not read: a `.yml` file beside the `.yaml` ones the patterns take, when it holds
  // documents (a script or cassette a model names may well be `.yml`).
  const strays = [...new Set([...found.strays, ...testStrays])].sort();
  const documents = await Promise.all(strays.map(holdsDocuments));
  for (const file of strays.filter((_, i) => documents[i])) {
    const shown = displayPath(root, file);
    const tests = !found.strays.includes(file);
    const patterns = tests ? globs.tests : globs.include;
    const twin = patterns.find((p) => p.endsWith('.yaml'))?.replace(/\.yaml$/, '.yml');
    diagnostics.push(
      diagnostic(
        shown,
        FILE_START,
        'project-file',
        `a .yml file is not read: the project reads ${patterns.join(', ')}; rename it to ${shown.replace(/\.yml$/, '.yaml')}${twin ? `, or add \`${twin}\` to \`${tests ? 'tests' : 'include'}\` in ${PROJECT_FILE}` : ''}`,
        'warning',
      ),
    );
  }
  // Told, not read: a file the patterns name that lives outside the project.
  for (const link of [...linksOut].sort()) {
    diagnostics.push(
      diagnostic(
        displayPath(root, link),
        FILE_START,
        'project-file',
        `${displayPath(root, link)} is a symlink to outside the project: not read`,
        'warning',
      ),
    );
  }
  const only = options.paths?.map((p) => resolve(cwd, p));
  // A folder given stands for the project's files under it (`validate agents/`).
  const folders = (only ?? []).filter((p) => statSync(p, { throwIfNoEntry: false })?.isDirectory());
  for (const path of only ?? []) {
    if (folders.includes(path) && isInside(root, path)) continue;
    if (!isInside(root, path)) {
      diagnostics.push(
        diagnostic(path, FILE_START, 'project-file', `${path} is outside the project at ${root}`),
      );
    } else if (path !== configFile && !files.includes(path)) {
      // Checked as asked, and said: `run` and `test` never read a file their globs do not match.
      files = [...files, path];
      const patterns = [...globs.include, ...globs.tests].join(', ');
      diagnostics.push(
        diagnostic(
          displayPath(root, path),
          FILE_START,
          'project-file',
          `${displayPath(root, path)} is not a file of the project (it reads ${patterns}): \`run\` and \`test\` never read it; add it to \`include\` in ${PROJECT_FILE}`,
          'warning',
        ),
      );
    }
  }
  // Recorded in file order, so diagnostics and first definitions are stable.
  const parsed = await Promise.all(files.map((f) => parseFile(f, displayPath(root, f), cache)));
  parsed.forEach((file, i) => {
    diagnostics.push(...file.diagnostics);
    for (const doc of file.documents) {
      const checked = checkDocument(doc, { projectFile: files[i] === configFile });
      diagnostics.push(...checked.diagnostics);
      entries.push(...checked.entries);
    }
  });
  if (files.length === 0 && !only) {
    const where = configFile ? displayPath(root, configFile) : root;
    diagnostics.push(
      diagnostic(
        where,
        FILE_START,
        'project-file',
        `no YAML files match ${(project?.include ?? DEFAULT_INCLUDE).join(', ')}`,
        'warning',
      ),
    );
  }
  const specs = indexEntries(entries);
  const { env, diagnostics: envProblems } = projectEnvChecked(root, specs, options.env);
  diagnostics.push(...envProblems);
  const modules = options.checkModules ? await checkModules(root, entries, env) : undefined;
  if (modules) diagnostics.push(...modules.diagnostics);
  const offline = await checkOfflineFiles(root, entries, env, options.registry, cache?.fileChecks);
  diagnostics.push(...offline.diagnostics);
  if (specs.schedule.size > 0) await loadCronParser();
  const context = {
    root,
    specs,
    entries,
    env,
    registry: options.registry,
    moduleTools: modules?.toolNames,
    scriptCallIds: offline.scriptCallIds,
    parsedFiles: new Set(files),
    testOnlyFiles,
    optionChecks: cache?.optionChecks,
  };
  for (const rule of RULES) {
    try {
      diagnostics.push(...rule.check(context));
    } catch (error) {
      diagnostics.push(
        diagnostic(
          configFile ? PROJECT_FILE : root,
          FILE_START,
          'internal-error',
          `rule ${rule.id} failed: ${(error as Error).message}`,
        ),
      );
    }
  }
  cache?.save();
  const onlyDisplay = only ? new Set(only.map((p) => displayPath(root, p))) : undefined;
  const under = folders.map((f) => displayPath(root, f)).map((f) => (f === '' ? '' : `${f}/`));
  const reported = onlyDisplay
    ? diagnostics.filter((d) => onlyDisplay.has(d.file) || under.some((f) => d.file.startsWith(f)))
    : diagnostics;
  return {
    root,
    configFile,
    files: [...(configFile ? [configFile] : []), ...files],
    specs,
    entries,
    diagnostics: reported.sort(compareDiagnostics),
    registry: options.registry,
  };
}

// Whether a file's start has a top-level `kind:` key, as an agentctl document does (after a
// byte order mark on its first line, as the loader reads it).
async function holdsDocuments(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return /^(\ufeff)?kind:[ \t]*[A-Za-z]/m.test(buffer.toString('utf8', 0, bytesRead));
  } finally {
    await handle.close();
  }
}
