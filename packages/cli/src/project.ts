import {
  compileProject,
  type Diagnostic,
  didYouMean,
  formatDiagnostic,
  inlineModelProblem,
  type LoadedProject,
  loadProject,
  PROJECT_FILE,
  type Runtime,
  scopeDiagnostics,
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
  const loaded = await loadProject({
    cwd: io.cwd,
    project: options.project as string | undefined,
    env: io.env,
    registry: defaultRegistry(),
    tests: read.tests,
    cache: true,
  });
  if (!loaded.configFile && loaded.files.length === 0) throw noProject(loaded.root);
  const model = options.model as string | undefined;
  const project =
    agent === undefined ? loaded : { ...loaded, diagnostics: scopeDiagnostics(loaded, agent, model) };
  failOnErrors(project.diagnostics, io, project.root, read.report);
  if (model !== undefined) checkModelFlag(project, model);
  return project;
}

/** The usage error of a command run where there is no project: no agentctl.yaml and no agent files. */
export function noProject(root: string): CliError {
  return new CliError(
    `no agentctl project in ${root}: no ${PROJECT_FILE} here or in a parent folder, and no agents/**/*.yaml (create one with \`agentctl init\`, or point at one with -C DIR)`,
    EXIT.usage,
  );
}

// `--model NAME` is the user's flag, not a YAML line: a bad one is a usage error naming the flag.
function checkModelFlag(project: LoadedProject, model: string): void {
  if (project.specs.model.has(model)) return;
  const slash = model.indexOf('/');
  const names = [...project.specs.model.keys()];
  if (slash <= 0) {
    throw new CliError(
      `--model ${model}: no model of that name${didYouMean(model, names)} (models: ${names.join(', ') || 'none'}; or give provider/model such as offline/echo)`,
      EXIT.usage,
    );
  }
  const providers = defaultRegistry().names('provider');
  const provider = model.slice(0, slash);
  if (!providers.includes(provider))
    throw new CliError(
      `--model ${model}: provider \`${provider}\` is not available${didYouMean(provider, providers)} (registered: ${providers.join(', ')})`,
      EXIT.usage,
    );
  const problem = inlineModelProblem(model);
  if (problem) throw new CliError(`--model ${model}: ${problem}`, EXIT.usage);
}

/** Loads and compiles the project into a runtime; the caller disposes it. */
export async function openRuntime(
  options: Record<string, unknown>,
  io: Io,
  only?: readonly string[],
): Promise<{ project: LoadedProject; runtime: Runtime }> {
  const project = await openProject(options, io, only?.length === 1 ? only[0] : undefined);
  const recorder = options.record ? new Recorder(String(options.record), io, project) : undefined;
  const { runtime, diagnostics } = await compileProject(project, {
    registry: defaultRegistry(),
    env: io.env,
    model: options.model as string | undefined,
    agents: only,
    wrapProvider: recorder?.wrap,
  });
  // The load's warnings were printed already; compile repeats them.
  const printed = new Set(project.diagnostics.map(formatDiagnostic));
  try {
    failOnErrors(
      diagnostics.filter((d) => d.severity === 'error' || !printed.has(formatDiagnostic(d))),
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
