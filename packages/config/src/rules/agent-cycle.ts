import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { AgentSpec } from '../spec-types.js';
import { type RuleContext, validAgents } from './rule.js';

interface Edge {
  to: string;
  from: IndexedEntry & { spec: AgentSpec };
  path: Array<string | number>;
}

/** No agent contains itself, through sub-agents or agent tools. */
export function agentCycle(ctx: RuleContext): Diagnostic[] {
  const edges = new Map<string, Edge[]>();
  for (const agent of validAgents(ctx)) {
    const list: Edge[] = [];
    agent.spec.sub_agents?.forEach((sub, i) => {
      list.push({ to: typeof sub === 'string' ? sub : sub.name, from: agent, path: ['sub_agents', i] });
    });
    agent.spec.tools?.forEach((tool, i) => {
      if (typeof tool === 'object' && 'agent' in tool)
        list.push({ to: tool.agent, from: agent, path: ['tools', i, 'agent'] });
    });
    if (!edges.has(agent.name)) edges.set(agent.name, list);
  }
  const out: Diagnostic[] = [];
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (name: string) => {
    state.set(name, 'active');
    stack.push(name);
    for (const edge of edges.get(name) ?? []) {
      const seen = state.get(edge.to);
      if (seen === 'active') {
        const cycle = [...stack.slice(stack.indexOf(edge.to)), edge.to];
        const key = [...cycle].sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          out.push(
            diagnostic(
              edge.from.file,
              edge.from.locate(edge.path),
              'agent-cycle',
              `agent cycle: ${cycle.join(' -> ')}`,
            ),
          );
        }
      } else if (seen === undefined && edges.has(edge.to)) visit(edge.to);
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const name of edges.keys()) if (!state.has(name)) visit(name);
  return out;
}
