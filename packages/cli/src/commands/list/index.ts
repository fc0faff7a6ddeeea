import { type Io, styles } from '../../io.js';
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
      ...(entry.parent !== undefined && { parent: entry.parent }),
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
  const s = styles(io.isTTY);
  for (const row of rows) {
    const type = row.type === 'llm' ? '' : ` [${row.type}]`;
    // An inline sub-agent without a description is at least placed in its tree.
    const description = row.description || (row.parent ? s.dim(`(inline sub-agent of ${row.parent})`) : '');
    io.stdout(`${row.name.padEnd(width)}  ${description}${type}\n`);
  }
  return 0;
}
