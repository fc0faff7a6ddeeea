import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import {
  type CompileOptions,
  compileProject,
  type Diagnostic,
  didYouMean,
  formatDiagnostic,
  inlineModelProblem,
  type LoadedProject,
  loadProject,
  modelIdTypo,
  PROJECT_FILE,
  providersOfModel,
  type Runtime,
  scopeDiagnostics,
  unknownProviderMessage,
} from '@agentctl/config';
import { CliError, EXIT } from './cli-error.js';
import { Recorder } from './commands/run/record.js';
import { defaultRegistry } from './default-registry.js';
import type { Io } from './io.js';
import { traceSecrets } from './tracing.js';

/**
 * Loads the project the command line points at, failing with its diagnostics when it has errors.
 * With `agent`, only errors in what that agent's tree reaches fail; the rest print as warnings.
 * With `tests`, the `kind: test` documents are read and checked too.
 */
export async function openProject(
  options: Record<string, unknown>,
  io: Io,
  agent?: string,
  read: { tests?: boolean; report?: (diagnostics: readonly Diagnostic[], root: string) => void } = {},
): Promise<LoadedProject> {
  const project = await loadScoped(options, io, agent, read.tests);
  failOnErrors(project.diagnostics, io, project.root, read.report);
  const model = options.model as string | undefined;
  if (model !== undefined) checkModelFlag(project, model, io);
  return project;
}

// The project, its diagnostics scoped to `agent`'s tree; nothing printed yet.
async function loadScoped(
  options: Record<string, unknown>,
  io: Io,
  agent: string | undefined,
  tests: boolean | undefined,
): Promise<LoadedProject> {
  const loaded = await loadProject({
    cwd: io.cwd,
    project: options.project as string | undefined,
    env: io.env,
    registry: defaultRegistry(),
    tests,
    cache: true,
  });
  if (!loaded.configFile && loaded.files.length === 0)
    throw noProject(loaded.root, options.project !== undefined);
  const model = options.model as string | undefined;
  return agent === undefined ? loaded : { ...loaded, diagnostics: scopeDiagnostics(loaded, agent, model) };
}

/**
 * The usage error of a command run where there is no project: no agentctl.yaml and no agent files.
 * `pointed`: the folder was given with -C, so no parent folder was searched.
 */
export function noProject(root: string, pointed = false): CliError {
  const where = pointed ? 'there' : 'here or in a parent folder';
  const fix = pointed ? '' : ', or point at one with -C DIR';
  const above = pointed ? undefined : projectAbove(root);
  const inside = above
    ? `; this folder is in the agents/ of ${above}, a project with no ${PROJECT_FILE}: run the command from ${above}, or here with -C ${relative(root, above)}`
    : '';
  return new CliError(
    `no agentctl project in ${root}: no ${PROJECT_FILE} ${where}, and no agents/**/*.yaml (create one with \`agentctl init\`${fix})${inside}`,
    EXIT.usage,
  );
}

// A project without agentctl.yaml is found only from its own folder: from inside its `agents/`
// (where a first project is edited), the folder holding that `agents/`.
function projectAbove(root: string): string | undefined {
  for (let dir = root; dirname(dir) !== dir; dir = dirname(dir))
    if (basename(dir) === 'agents' && holdsYaml(dir)) return dirname(dir);
  return undefined;
}

function holdsYaml(dir: string): boolean {
  try {
    return readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.yaml'));
  } catch {
    return false;
  }
}

/**
 * For a watched project (`dev`, `serve --watch`), whose loader does not stop at an empty folder:
 * the {@link noProject} error when `root` has no agentctl.yaml and the first generation no agent.
 */
export function emptyFolder(root: string, agents: number, pointed: boolean): CliError | undefined {
  return agents === 0 && !existsSync(join(root, PROJECT_FILE)) ? noProject(root, pointed) : undefined;
}

/**
 * For a watched project (`dev`, `serve --watch`), whose build would blame a YAML line for it: a bad
 * `--model` is bad usage (exit 2), said before the watch starts, as `run` says it.
 */
export async function checkModelOption(options: Record<string, unknown>, io: Io): Promise<void> {
  if (options.model === undefined) return;
  checkModelFlag(await loadScoped(options, io, undefined, false), String(options.model), io);
}

// `--model NAME` is the user's flag, not a YAML line: a bad one is a usage error naming the flag.
function checkModelFlag(project: LoadedProject, model: string, io: Io): void {
  if (project.specs.model.has(model)) return;
  const slash = model.indexOf('/');
  const names = [...project.specs.model.keys()];
  if (slash <= 0) {
    const providers = providersOfModel(model);
    const hint =
      didYouMean(model, names) ||
      (providers.length > 0 ? `; did you mean \`${providers[0]}/${model}\`?` : '');
    throw new CliError(
      `--model ${model}: no model of that name${hint} (models: ${names.join(', ') || 'none'}; or give provider/model such as offline/echo)`,
      EXIT.usage,
    );
  }
  const providers = defaultRegistry().names('provider');
  const provider = model.slice(0, slash);
  const unknown = unknownProviderMessage(provider, providers, model.slice(slash + 1));
  if (unknown) throw new CliError(`--model ${model}: ${unknown}`, EXIT.usage);
  const problem = inlineModelProblem(model);
  if (problem) throw new CliError(`--model ${model}: ${problem}`, EXIT.usage);
  // A likely typo is only a warning, as in YAML: the catalogue does not know every new model.
  const guess = modelIdTypo(provider, model.slice(slash + 1));
  if (guess)
    io.stderr(
      `warning: --model ${model}: ${provider} has no model \`${model.slice(slash + 1)}\` in agentctl's catalogue; did you mean \`${provider}/${guess}\`?\n`,
    );
}

/**
 * Loads and compiles the project into a runtime; the caller disposes it. With `only` (a run), a
 * model that lacks its API key is an error now, before anything is written; a long-lived command
 * passes `keys` to be warned of it instead.
 */
export async function openRuntime(
  options: Record<string, unknown>,
  io: Io,
  only?: readonly string[],
  keys?: Pick<CompileOptions, 'requireKeys' | 'keyHint'>,
): Promise<{ project: LoadedProject; runtime: Runtime }> {
  const project = await loadScoped(options, io, only?.length === 1 ? only[0] : undefined, false);
  // The load's warnings wait for the compile: one it turns into an error (`${VAR:?}` unset) is said once.
  if (project.diagnostics.some((d) => d.severity === 'error'))
    failOnErrors(project.diagnostics, io, project.root);
  if (options.model !== undefined) checkModelFlag(project, options.model as string, io);
  const recorder = options.record ? new Recorder(String(options.record), io, project) : undefined;
  const { runtime, diagnostics } = await compileProject(project, {
    registry: defaultRegistry(),
    env: io.env,
    model: options.model as string | undefined,
    agents: only,
    wrapProvider: recorder?.wrap,
    requireKeys: only !== undefined ? true : keys?.requireKeys,
    keyHint: keys?.keyHint,
  });
  // Compile repeats the load's warnings, and makes errors of some of them.
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const superseded = (w: Diagnostic) =>
    errors.some((e) => e.file === w.file && e.line === w.line && e.col === w.col && e.rule === w.rule);
  const loadWarnings = project.diagnostics.filter((d) => !superseded(d));
  const said = new Set(loadWarnings.map(formatDiagnostic));
  try {
    failOnErrors(
      [
        ...loadWarnings,
        ...diagnostics.filter((d) => d.severity === 'error' || !said.has(formatDiagnostic(d))),
      ],
      io,
      project.root,
    );
  } catch (error) {
    // What compiled before the error (an MCP server, a worker) is released, or the process never exits.
    await runtime?.dispose();
    throw error;
  }
  if (!runtime) throw new CliError('the project could not be compiled');
  traceSecrets(runtime);
  return { project, runtime: recorder ? recorder.attach(runtime) : runtime };
}

// `report` also gets a project with errors, for a command whose report is read by a machine.
function failOnErrors(
  diagnostics: readonly Diagnostic[],
  io: Io,
  root: string,
  report?: (diagnostics: readonly Diagnostic[], root: string) => void,
): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
  if (errors.length > 0) {
    report?.(diagnostics, root);
    throw new CliError(`${errors.length} error(s) in the project; nothing was run`, EXIT.failed);
  }
}
