import type { Io } from '../../io.js';
import { openProject } from '../../project.js';

/** `agentctl list`: the agents of the project with their type and description. */
export async function listCommand(options: Record<string, unknown>, io: Io): Promise<number> {
  const project = await openProject(options, io);
  const rows = [...project.specs.agent.values()]
    .map((entry) => ({
      name: entry.name,
      type: entry.spec.type ?? 'llm',
      description: entry.spec.description ?? '',
      file: entry.file,
      inline: entry.parent !== undefined,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (options.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout('no agents in this project\n');
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const row of rows) {
    const type = row.type === 'llm' ? '' : ` [${row.type}]`;
    io.stdout(`${row.name.padEnd(width)}  ${row.description}${type}\n`);
  }
  return 0;
}
