import { join } from 'node:path';
import { didYouMean, formatDiagnostic, openMemory } from '@agentctl/config';
import { CliError, EXIT } from '../cli-error.js';
import { defaultRegistry } from '../default-registry.js';
import type { Io } from '../io.js';
import { openProject } from '../project.js';
import { checkSessionsFolder } from '../session-store.js';
import { sessionsCommand as typedSessionsCommand } from './run/resume-command.js';
import type { SessionsStore } from './sessions/index.js';

/**
 * Adapts the parsed `agentctl sessions` options to the sessions command module, on the store the
 * project keeps sessions in: `--memory NAME`, else the project's `defaults.memory` when it keeps
 * sessions (file, postgres), else the file store in `.agentctl/sessions`.
 */
export async function sessionsEntry(options: Record<string, unknown>, io: Io): Promise<number> {
  const { sessionsCommand } = await import('./sessions/index.js');
  const name = options.memory as string | undefined;
  const project = await openProject(options, io).catch((error: unknown) => {
    // Without a project the default folder under the current directory still works; `--memory` needs one.
    if (name !== undefined) throw error;
    return undefined;
  });
  const registry = defaultRegistry();
  if (name !== undefined && project && !project.specs.memory.has(name) && !registry.memory.has(name)) {
    const known = [...project.specs.memory.keys()];
    throw new CliError(
      `--memory ${name}: the project has no memory of that name${didYouMean(name, known)} (memories: ${known.join(', ') || 'none'})`,
      EXIT.usage,
    );
  }
  const opened = project ? await openMemory(project, { name, registry, env: io.env }) : undefined;
  try {
    for (const d of opened?.diagnostics ?? []) io.stderr(`${formatDiagnostic(d)}\n`);
    if (opened?.diagnostics.some((d) => d.severity === 'error')) {
      throw new CliError(`memory ${opened.name} cannot be opened`, EXIT.failed);
    }
    const memory = opened?.memory;
    const store = memory && isSessionsStore(memory) ? memory : undefined;
    if (memory && !store && name !== undefined) {
      throw new CliError(
        `memory ${opened?.name} keeps no sessions that can be listed or exported`,
        EXIT.failed,
      );
    }
    if (!store) checkSessionsFolder(join(project?.root ?? io.cwd, '.agentctl/sessions'));
    return await sessionsCommand(
      String(options.action),
      (options.args as string[] | undefined) ?? [],
      {
        json: options.json === true,
        project: project?.root ?? io.cwd,
        store,
        limit: options.limit as string | undefined,
        cursor: options.cursor as string | undefined,
        typedCommand: (args) =>
          typedSessionsCommand(
            io,
            {
              project: typeof options.project === 'string' ? options.project : undefined,
              memory: typeof options.memory === 'string' ? options.memory : undefined,
            },
            args,
          ),
      },
      {
        stdout: io.stdout,
        stderr: io.stderr,
        outputClosed: io.outputClosed,
        stdoutDrained: io.stdoutDrained,
      },
    );
  } finally {
    await opened?.dispose();
  }
}

function isSessionsStore(value: object): value is SessionsStore {
  const store = value as Partial<SessionsStore>;
  return typeof store.exportSession === 'function' && typeof store.importSession === 'function';
}
