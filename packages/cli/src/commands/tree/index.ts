import type { AgentSpec, SpecEntry } from '@agentctl/config';
import type { Io } from '../../io.js';
import { openProject } from '../../project.js';
import { unknownAgent } from '../../unknown-agent.js';

/** One node of `agentctl tree --json`. */
export interface TreeNode {
  name: string;
  type: string;
  model?: string;
  tools: string[];
  subAgents: TreeNode[];
}

/** `agentctl tree <agent>`: the agent with its sub-agents and tools, from the YAML alone. */
export async function treeCommand(options: Record<string, unknown>, io: Io): Promise<number> {
  const project = await openProject(options, io);
  const agents = project.specs.agent as Map<string, SpecEntry<AgentSpec>>;
  const name = String(options.agent);
  if (!agents.has(name)) {
    throw unknownAgent(name, agents.keys());
  }
  const build = (spec: AgentSpec, seen: Set<string>): TreeNode => ({
    name: spec.name,
    type: spec.type ?? 'llm',
    model: typeof spec.model === 'string' ? spec.model : undefined,
    tools: (spec.tools ?? []).map(toolLabel),
    subAgents: (spec.sub_agents ?? []).flatMap((sub) => {
      const child = typeof sub === 'string' ? agents.get(sub)?.spec : sub;
      if (!child || seen.has(child.name)) return [];
      return [build(child, new Set([...seen, child.name]))];
    }),
  });
  const root = build(agents.get(name)!.spec, new Set([name]));
  if (options.json) {
    io.stdout(`${JSON.stringify(root, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  const draw = (node: TreeNode, prefix: string, last: boolean, top: boolean) => {
    const label = `${node.name}${node.type === 'llm' ? '' : ` [${node.type}]`}${node.model ? ` (${node.model})` : ''}`;
    lines.push(top ? label : `${prefix}${last ? '└─ ' : '├─ '}${label}`);
    const inner = top ? '' : `${prefix}${last ? '   ' : '│  '}`;
    const children: Array<{ tool: string } | { node: TreeNode }> = [
      ...node.tools.map((tool) => ({ tool })),
      ...node.subAgents.map((child) => ({ node: child })),
    ];
    children.forEach((child, i) => {
      const isLast = i === children.length - 1;
      if ('tool' in child) lines.push(`${inner}${isLast ? '└─ ' : '├─ '}⚙ ${child.tool}`);
      else draw(child.node, inner, isLast, false);
    });
  };
  draw(root, '', true, true);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

function toolLabel(ref: unknown): string {
  if (typeof ref === 'string') return ref;
  const [kind, value] = Object.entries(ref as Record<string, unknown>)[0] ?? ['tool', '?'];
  return `${kind}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
}
