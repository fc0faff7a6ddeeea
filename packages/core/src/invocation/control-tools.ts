import type { Agent } from '../agent.js';
import { type AnyTool, defineTool } from '../tool.js';
import type { InvocationContext } from './invocation-context.js';

/** Name of the tool an LLM agent calls to hand the conversation to another agent. */
export const TRANSFER_TOOL = 'transfer_to_agent';
/** Name of the tool an agent inside a loop calls to end the loop. */
export const EXIT_LOOP_TOOL = 'exit_loop';

/**
 * Names no tool of an LLM agent may take: the runtime gives the agent tools of these names (a
 * transfer when it has somewhere to go, exit_loop inside a loop), which would hide its own.
 */
export const RESERVED_TOOL_NAMES: readonly string[] = [TRANSFER_TOOL, EXIT_LOOP_TOOL];

/** Why a tool may not be named `name` (one of {@link RESERVED_TOOL_NAMES}). */
export function reservedToolMessage(name: string): string {
  const what =
    name === TRANSFER_TOOL
      ? 'the tool agentctl gives an agent to hand the conversation to another agent'
      : 'the tool agentctl gives an agent inside a loop to end the loop';
  return `a tool may not be named \`${name}\`: that is ${what}, which would hide it (its calls would never reach it); rename the tool`;
}

/** Options of an LLM agent that shape its transfer targets. */
interface TransferRules {
  disallowTransferToParent?: boolean;
  disallowTransferToPeers?: boolean;
}

/** The agents `agent` may transfer to: its sub-agents, its LLM parent and that parent's other sub-agents. */
export function transferTargets(agent: Agent & { getConfig?(): TransferRules }): Agent[] {
  const rules = agent.getConfig?.() ?? {};
  const targets = [...agent.subAgents];
  const parent = agent.parent;
  if (parent?.type === 'llm') {
    if (!rules.disallowTransferToParent) targets.push(parent);
    if (!rules.disallowTransferToPeers) targets.push(...parent.subAgents.filter((peer) => peer !== agent));
  }
  return targets;
}

/** The control tools an LLM agent gets inside an invocation: transfer (when it has targets) and exit_loop (inside a loop). */
export function controlTools(
  agent: Agent & { getConfig?(): TransferRules },
  ctx: InvocationContext,
  on: { transfer(target: Agent): void; exitLoop(): void },
): AnyTool[] {
  const tools: AnyTool[] = [];
  const targets = transferTargets(agent);
  if (targets.length > 0) {
    const list = targets.map((t) => `- ${t.name}: ${t.description || '(no description)'}`).join('\n');
    tools.push(
      defineTool<{ agent_name: string }>({
        name: TRANSFER_TOOL,
        description: `Hand the conversation to the agent best suited to it. Agents you can transfer to:\n${list}`,
        parameters: {
          type: 'object',
          properties: {
            agent_name: {
              type: 'string',
              enum: targets.map((t) => t.name),
              description: 'the agent to transfer to',
            },
          },
          required: ['agent_name'],
          additionalProperties: false,
        },
        execute: ({ agent_name }) => {
          const target = targets.find((t) => t.name === agent_name);
          if (!target) throw new Error(`cannot transfer to ${agent_name}`);
          ctx.emit('transfer', { from: agent.name, to: target.name });
          on.transfer(target);
          return `Transferred to ${target.name}.`;
        },
      }),
    );
  }
  if (ctx.escalation) {
    const scope = ctx.escalation;
    tools.push(
      defineTool<{ reason?: string }>({
        name: EXIT_LOOP_TOOL,
        description: 'Call when the work of the enclosing loop is done, to stop repeating it.',
        parameters: {
          type: 'object',
          properties: { reason: { type: 'string' } },
          additionalProperties: false,
        },
        execute: ({ reason }) => {
          scope.escalated = true;
          ctx.emit('escalate', { reason });
          on.exitLoop();
          return 'The loop will stop.';
        },
      }),
    );
  }
  return tools;
}
