import type { Agent } from './agent.js';
import type { AgentEvent } from './events.js';
import { type InvocationCheckpoint, Runner } from './runner.js';
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
  const tool = defineTool<{ request: string }>({
    name: agent.name,
    description: agent.description || `Ask the ${agent.name} agent`,
    parameters: {
      type: 'object',
      properties: { request: { type: 'string', description: `what to ask ${agent.name}` } },
      required: ['request'],
      additionalProperties: false,
    },
    execute: async ({ request }, context) => {
      const info = context.invocation;
      const store = (info?.store as SessionStore | undefined) ?? options.store ?? new InMemorySessionStore();
      runner = runner?.store === store ? runner : new Runner({ agent, store });
      const common = {
        signal: context.signal,
        branchPrefix: info?.branch,
        onEvent: (e: AgentEvent) => info?.forward(e),
        onApproval: info?.onApproval,
        callerPath: info?.agentPath,
        // The caller's user: the child's `user:` keys are theirs, not the child session's alone.
        userId: info?.userId,
      };
      // A child that paused earlier for this very call is resumed with the decisions meant for it.
      const waiting = info ? await pausedChild(store, info.sessionId, context.callId) : undefined;
      const run = waiting
        ? runner.resume({
            ...common,
            sessionId: waiting.id,
            decisions: info!.decisions.filter((d) => waiting.pending.has(d.callId)),
            parent: { sessionId: info!.sessionId, callId: context.callId },
          })
        : runner.run({
            ...common,
            input: request,
            parent: info ? { sessionId: info.sessionId, callId: context.callId } : undefined,
          });
      const result = await run.invocation;
      if (result.status === 'paused') {
        if (!info)
          throw new Error(`${agent.name} paused waiting for approval, which needs a runner's session`);
        context.pause(result.pending ?? []);
      }
      return result.output;
    },
  });
  return { ...tool, agent };
}

async function pausedChild(
  store: SessionStore,
  parentId: string,
  callId: string,
): Promise<{ id: string; pending: Set<string> } | undefined> {
  const children = await store.list({ parentId });
  const child = children.find((c) => c.parentCallId === callId && c.paused);
  if (!child) return undefined;
  const session = await store.get(child.id);
  const checkpoint = session?.checkpoint as InvocationCheckpoint | undefined;
  return checkpoint
    ? { id: child.id, pending: new Set(checkpoint.pending.map((p) => p.call.id)) }
    : undefined;
}
