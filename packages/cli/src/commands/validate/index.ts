import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  connectMemories,
  connectRemoteAgents,
  connectToolsets,
  loadProject,
  type NetworkUse,
  networkUses,
} from '@agentctl/config';
import { CliError, EXIT } from '../../cli-error.js';
import { defaultRegistry } from '../../default-registry.js';
import type { Io } from '../../io.js';
import { noProject } from '../../project.js';
import { formatGithub } from './format-github.js';
import { formatJson } from './format-json.js';
import { formatSarif } from './format-sarif.js';
import { formatText } from './format-text.js';

/** Options of `agentctl validate`. */
export interface ValidateOptions {
  paths?: string[];
  format?: 'text' | 'json' | 'github' | 'sarif';
  /** The same as `format: 'json'`. */
  json?: boolean;
  strict?: boolean;
  project?: string;
  /** Also start the MCP servers (tool names against their real lists) and connect to memory servers (postgres). */
  connect?: boolean;
}

/** `agentctl validate`: checks the project without secrets or network; exit 0 valid, 1 invalid. */
export async function validateCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const options = raw as ValidateOptions;
  const format = options.json
    ? 'json'
    : (options.format ?? (io.env.GITHUB_ACTIONS === 'true' ? 'github' : 'text'));
  // A report for programs: what a module prints as it is loaded goes to stderr, not into it.
  if (format !== 'text') io.reserveStdout?.();
  // A path that names nothing is a typo on the command line, not a problem in the project.
  const missing = (options.paths ?? []).filter((p) => !existsSync(resolve(io.cwd, p)));
  if (missing.length > 0) throw new CliError(`no such file or folder: ${missing.join(', ')}`, EXIT.usage);
  const project = await loadProject({
    cwd: io.cwd,
    project: options.project,
    paths: options.paths && options.paths.length > 0 ? options.paths : undefined,
    env: io.env,
    registry: defaultRegistry(),
    checkModules: true,
    tests: true,
  });
  // Nothing to check is not a pass: `run` and `list` refuse this folder, and so does CI's validate.
  if (!project.configFile && project.files.length === 0 && !options.paths?.length)
    throw noProject(project.root, options.project !== undefined);
  // A folder stands for the project's files under it: one holding none names nothing to check.
  for (const given of options.paths ?? []) {
    const folder = resolve(io.cwd, given);
    if (!statSync(folder).isDirectory() || !within(project.root, folder)) continue;
    if (!project.files.some((file) => within(folder, file)))
      throw new CliError(`${given} holds none of the project's files; nothing there to validate`, EXIT.usage);
  }
  if (project.files.length === 0 && project.diagnostics.length === 0) {
    throw new CliError(`no YAML files found in ${project.root} (include globs matched nothing)`, EXIT.failed);
  }
  const registry = defaultRegistry();
  const connected =
    options.connect && !project.diagnostics.some((d) => d.severity === 'error')
      ? [
          ...(await connectToolsets(project, { registry, env: io.env })),
          ...(await connectMemories(project, { registry, env: io.env })),
          ...(await connectRemoteAgents(project, { registry, env: io.env })),
        ]
      : [];
  const diagnostics = [...project.diagnostics, ...connected];
  switch (format) {
    case 'json':
      io.stdout(formatJson(diagnostics, project.files, options.strict === true));
      break;
    case 'github':
      io.stdout(formatGithub(diagnostics, project.root, resolve(io.cwd, io.env.GITHUB_WORKSPACE || '.')));
      break;
    case 'sarif':
      io.stdout(formatSarif(diagnostics, pathToFileURL(project.root).href));
      break;
    default:
      io.stdout(formatText(diagnostics, project.root, io.isTTY));
      if (!options.connect) io.stderr(offlineNote(networkUses(project, registry)));
  }
  const errors = diagnostics.some((d) => d.severity === 'error');
  const warnings = diagnostics.some((d) => d.severity === 'warning');
  return errors || (options.strict && warnings) ? EXIT.failed : EXIT.ok;
}

/** Whether `path` is `folder` or lies under it (both absolute, as the loader gives them). */
function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// What the plugins' descriptors say an offline check could not reach (capabilities.needsNetwork).
function offlineNote(uses: readonly NetworkUse[]): string {
  const reachable = uses.filter((use) => use.kind !== 'model');
  if (reachable.length === 0) return '';
  const names = reachable.map((use) => `${use.kind} ${use.name} (${use.plugin})`).join(', ');
  return `note: not reached offline: ${names}; \`agentctl validate --connect\` starts and checks them\n`;
}
