import type { Io } from '../io.js';
import { openProject } from '../project.js';

/** Adapts the parsed `agentctl sessions` options to the sessions command module. */
export async function sessionsEntry(options: Record<string, unknown>, io: Io): Promise<number> {
  const { sessionsCommand } = await import('./sessions/index.js');
  const project = await openProject(options, io).catch(() => undefined);
  return sessionsCommand(
    String(options.action),
    (options.args as string[] | undefined) ?? [],
    { json: options.json === true, project: project?.root ?? io.cwd },
    { stdout: io.stdout, stderr: io.stderr },
  );
}
