import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { AgentSpec } from '../spec-types.js';
import { type RuleContext, validAgents } from './rule.js';

/** Fields only an LLM agent has: refused on workflows and remote agents. */
export const LLM_ONLY: ReadonlyArray<keyof AgentSpec> = [
  'model',
  'instruction',
  'instruction_file',
  'tools',
  'output_schema',
  'temperature',
  'top_p',
  'max_output_tokens',
];

// What a local agent has and a remote one would silently ignore: refused instead.
/** Fields only a local agent has: refused on a remote (`a2a`) agent. */
export const LOCAL_ONLY: ReadonlyArray<keyof AgentSpec> = [
  'sub_agents',
  'max_iterations',
  'middleware',
  'memory',
  'output_key',
  'approval',
  'max_history',
  'disallow_transfer_to_parent',
  'disallow_transfer_to_peers',
];

// What an LLM agent's loop applies and a workflow, which runs no loop of its own, would silently
// ignore: refused, pointing at the sub-agents that do apply them.
/** Fields only an LLM agent's loop applies: refused on workflow agents. */
export const LOOP_ONLY: ReadonlyArray<keyof AgentSpec> = [
  'middleware',
  'output_key',
  'approval',
  'max_history',
  'limits',
  'disallow_transfer_to_parent',
  'disallow_transfer_to_peers',
];

/**
 * Workflow agents (sequential, parallel, loop) run sub-agents and have no model or tools of their
 * own; a remote agent (`a2a`) has a `url` and nothing that runs locally.
 */
export function workflowConstraints(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    const spec = agent.spec;
    const type = spec.type ?? 'llm';
    const at = (path: Array<string | number>, key: boolean, message: string) =>
      out.push(diagnostic(agent.file, agent.locate(path, { key }), 'workflow-constraints', message));
    if (type === 'a2a') {
      if (spec.url === undefined)
        at(['type'], false, "an a2a agent needs `url`, the remote agent's A2A endpoint");
      for (const key of [...LLM_ONLY, ...LOCAL_ONLY]) {
        if (spec[key] !== undefined) at([key], true, `an a2a agent runs remotely and has no \`${key}\``);
      }
      // One turn's time is all a remote agent can be held to: it counts no steps or tokens here.
      for (const key of Object.keys(spec.limits ?? {}))
        if (key !== 'timeout')
          at(
            ['limits', key],
            true,
            `an a2a agent runs remotely and has no \`limits.${key}\`; only \`limits.timeout\` holds it`,
          );
      continue;
    }
    for (const key of ['url', 'headers'] as const) {
      if (spec[key] !== undefined) at([key], true, `\`${key}\` is for remote agents (type: a2a)`);
    }
    if (type === 'llm') {
      if (spec.max_iterations !== undefined) {
        out.push(
          diagnostic(
            agent.file,
            agent.locate(['max_iterations'], { key: true }),
            'workflow-constraints',
            '`max_iterations` is for loop agents; an llm agent uses `limits.max_iterations`',
          ),
        );
      }
      continue;
    }
    if (!spec.sub_agents || spec.sub_agents.length === 0) {
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['type']),
          'workflow-constraints',
          `a ${type} agent needs \`sub_agents\` to run`,
        ),
      );
    }
    for (const key of [...LLM_ONLY, ...LOOP_ONLY]) {
      if (spec[key] !== undefined)
        out.push(
          diagnostic(
            agent.file,
            agent.locate([key], { key: true }),
            'workflow-constraints',
            `a ${type} agent has no \`${key}\`; give it to one of its sub-agents`,
          ),
        );
    }
    if (spec.max_iterations !== undefined && type !== 'loop') {
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['max_iterations'], { key: true }),
          'workflow-constraints',
          `\`max_iterations\` is for loop agents, not ${type}`,
        ),
      );
    }
  }
  return out;
}
