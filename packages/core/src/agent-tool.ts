import type { Agent } from './agent.js';
import { Runner } from './runner.js';
import { InMemorySessionStore, type SessionStore } from './session.js';
import { type AnyTool, defineTool } from './tool.js';

/**
 * Wraps an agent as a tool: each call runs the agent in a child session linked to the calling
 * session and tool call, streams its events to the caller under the child branch, and returns its
 * final answer. A child that fails gives a failed tool result.
 *
 * @example
 * createAgent({ name: 'writer', provider, tools: [agentTool(summarizer)] });
 */
export function agentTool(agent: Agent, options: { store?: SessionStore } = {}): AnyTool {
  let runner: Runner | undefined;
  return defineTool<{ request: string }>({
    name: agent.name,
    description: agent.description || `Ask the ${agent.name} agent`,
    parameters: {
      type: 'object',
      properties: { request: { type: 'string', description: `what to ask ${agent.name}` } },
      required: ['request'],
      additionalProperties: false,
    },
    execute: async ({ request }, context) => {
      const store =
        (context.invocation?.store as SessionStore | undefined) ??
        options.store ??
        new InMemorySessionStore();
      runner = runner?.store === store ? runner : new Runner({ agent, store });
      const run = runner.run({
        input: request,
        signal: context.signal,
        branchPrefix: context.invocation?.branch,
        parent: context.invocation
          ? { sessionId: context.invocation.sessionId, callId: context.callId }
          : undefined,
        onEvent: (event) => context.invocation?.forward(event),
      });
      const result = await run.invocation;
      if (result.status === 'paused') {
        const names = (result.pending ?? []).map((p) => p.call.name).join(', ');
        throw new Error(
          `${agent.name} paused waiting for approval of ${names}; agent tools cannot pause their caller`,
        );
      }
      return result.output;
    },
  });
}
