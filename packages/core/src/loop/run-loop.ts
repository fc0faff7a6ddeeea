import { AgentError } from '../errors.js';
import type { PendingApproval } from '../events.js';
import type { ToolCall } from '../messages.js';
import { warnOnce } from '../warn-once.js';
import type { LoopContext } from './loop-context.js';
import { modelTurn } from './model-turn.js';
import { executeToolCalls } from './tool-execution.js';

/** How the loop stopped when it did not fail. */
export type LoopOutcome =
  | { reason: 'complete'; text: string }
  | { reason: 'paused'; text: string; pending: PendingApproval[] };

/**
 * The agent loop: call the model, run the tools it asks for, add their results, repeat until the
 * model answers without tools, a tool ends the invocation, a call waits for approval, or a limit
 * stops it (thrown as an {@link AgentError}).
 */
export async function runLoop(ctx: LoopContext): Promise<LoopOutcome> {
  let text = '';
  const resumed = unansweredCalls(ctx);
  if (resumed.length > 0) {
    await ctx.beforeTools();
    const executed = executeToolCalls(ctx, resumed);
    const pending = executed instanceof Promise ? await executed : executed;
    if (pending.length > 0) return { reason: 'paused', text, pending };
  }
  while (!ctx.ended) {
    // The limit bounds the loop's steps: a failed call (a fallback chain leaving a model that is
    // down) is counted in usage, not against it.
    if (ctx.usage.iterations - (ctx.usage.failedCalls ?? 0) >= ctx.limits.maxIterations) {
      throw new AgentError(
        `agent ${ctx.agentName} reached its limit of ${ctx.limits.maxIterations} model calls`,
        'MAX_ITERATIONS_EXCEEDED',
        { context: { agent: ctx.agentName, limit: ctx.limits.maxIterations } },
      );
    }
    const message = await modelTurn(ctx);
    text = message.content ?? '';
    if (ctx.usage.unreportedCalls !== undefined && ctx.limits.maxTokens !== Number.POSITIVE_INFINITY)
      unenforceableLimit(ctx);
    if (ctx.usage.totalTokens > ctx.limits.maxTokens) {
      throw new AgentError(
        `agent ${ctx.agentName} used ${ctx.usage.totalTokens} tokens, over its limit of ${ctx.limits.maxTokens}`,
        'MAX_TOKENS_EXCEEDED',
        { context: { agent: ctx.agentName, limit: ctx.limits.maxTokens, used: ctx.usage.totalTokens } },
      );
    }
    if (!message.toolCalls?.length) break;
    const written = ctx.beforeTools();
    if (written) await written;
    const executed = executeToolCalls(ctx, message.toolCalls);
    const pending = executed instanceof Promise ? await executed : executed;
    if (pending.length > 0) return { reason: 'paused', text, pending };
  }
  return { reason: 'complete', text };
}

// A resumed run starts with the calls of the last assistant message that have no result yet.
function unansweredCalls(ctx: LoopContext): ToolCall[] {
  if (ctx.decisions.size === 0) return [];
  const messages = ctx.messages;
  let i = messages.length - 1;
  const answered = new Set<string>();
  for (; i >= 0 && messages[i].role === 'tool'; i--) answered.add(messages[i].toolCallId ?? '');
  const last = messages[i];
  if (last?.role !== 'assistant') return [];
  return (last.toolCalls ?? []).filter((call) => !answered.has(call.id));
}

// A provider that reports no usage (some OpenAI-compatible servers) leaves a token limit counting
// nothing for its calls: said once per agent and limit, rather than let the limit look enforced.
function unenforceableLimit(ctx: LoopContext): void {
  warnOnce(
    `agentctl: warning: the model of agent ${ctx.agentName} reported no token usage for some calls, so its limit of ${ctx.limits.maxTokens} tokens (limits.max_tokens) counts only the calls that did`,
  );
}
