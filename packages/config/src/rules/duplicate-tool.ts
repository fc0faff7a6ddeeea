import { RESERVED_TOOL_NAMES, reservedToolMessage } from '@agentctl/core';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { type RuleContext, validAgents } from './rule.js';

/**
 * No agent gets two tools of one name, nor one the runtime gives it itself (`transfer_to_agent`,
 * `exit_loop`), where the names are known without starting anything:
 * named tools, built-ins, agents as tools and (when modules were checked) module exports.
 * Toolsets' names are only known once their servers run (`validate --connect`).
 */
export function duplicateTool(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    const seen = new Map<string, number>();
    agent.spec.tools?.forEach((tool, i) => {
      let names: readonly string[] = [];
      if (typeof tool === 'string') names = [tool];
      else if ('builtin' in tool) names = [tool.builtin];
      else if ('agent' in tool) names = [tool.agent];
      else if ('module' in tool) names = ctx.moduleTools?.get(agent)?.get(i) ?? [];
      for (const name of names) {
        if (RESERVED_TOOL_NAMES.includes(name)) {
          out.push(
            diagnostic(agent.file, agent.locate(['tools', i]), 'reserved-name', reservedToolMessage(name)),
          );
          continue;
        }
        const first = seen.get(name);
        if (first !== undefined) {
          out.push(
            diagnostic(
              agent.file,
              agent.locate(['tools', i]),
              'duplicate-tool',
              `agent \`${agent.name}\` gets two tools named \`${name}\` (entries ${first + 1} and ${i + 1} of \`tools\`)`,
            ),
          );
        } else seen.set(name, i);
      }
    });
  }
  return out;
}
