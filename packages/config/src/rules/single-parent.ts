import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { type RuleContext, validAgents } from './rule.js';

/** An agent is the sub-agent of one parent at most: a tree, not a graph. Agent tools may be shared. */
export function singleParent(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const parentOf = new Map<string, string>();
  for (const agent of validAgents(ctx)) {
    agent.spec.sub_agents?.forEach((sub, i) => {
      const name = typeof sub === 'string' ? sub : sub.name;
      const earlier = parentOf.get(name);
      if (earlier !== undefined && earlier !== agent.name) {
        out.push(
          diagnostic(
            agent.file,
            agent.locate(['sub_agents', i]),
            'single-parent',
            `agent \`${name}\` is already a sub-agent of \`${earlier}\`; use \`- agent: ${name}\` in tools to share it`,
          ),
        );
      } else parentOf.set(name, agent.name);
    });
  }
  return out;
}
