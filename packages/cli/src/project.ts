import {
  compileProject,
  type Diagnostic,
  formatDiagnostic,
  type LoadedProject,
  loadProject,
  PROJECT_FILE,
  type Runtime,
} from '@agentctl/config';
import { CliError, EXIT } from './cli-error.js';
import { Recorder } from './commands/run/record.js';
import { defaultRegistry } from './default-registry.js';
import type { Io } from './io.js';

/** Loads the project the command line points at, failing with its diagnostics when it has errors. */
export async function openProject(options: Record<string, unknown>, io: Io): Promise<LoadedProject> {
  const project = await loadProject({
    cwd: io.cwd,
    project: options.project as string | undefined,
    env: io.env,
  });
  if (!project.configFile && project.files.length === 0) {
    throw new CliError(
      `no agentctl project in ${project.root}: no ${PROJECT_FILE} here or in a parent folder, and no agents/**/*.yaml (create one with \`agentctl init\`, or point at one with -C DIR)`,
      EXIT.usage,
    );
  }
  failOnErrors(project.diagnostics, io);
  return project;
}

/** Loads and compiles the project into a runtime; the caller disposes it. */
export async function openRuntime(
  options: Record<string, unknown>,
  io: Io,
  only?: readonly string[],
): Promise<{ project: LoadedProject; runtime: Runtime }> {
  const project = await openProject(options, io);
  const recorder = options.record ? new Recorder(String(options.record), io, project) : undefined;
  const { runtime, diagnostics } = await compileProject(project, {
    registry: defaultRegistry(),
    env: io.env,
    model: options.model as string | undefined,
    agents: only,
    wrapProvider: recorder?.wrap,
  });
  failOnErrors(diagnostics, io);
  if (!runtime) throw new CliError('the project could not be compiled');
  return { project, runtime: recorder ? recorder.attach(runtime) : runtime };
}

function failOnErrors(diagnostics: readonly Diagnostic[], io: Io): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
  if (errors.length > 0) {
    throw new CliError(`${errors.length} error(s) in the project; nothing was run`, EXIT.failed);
  }
}
