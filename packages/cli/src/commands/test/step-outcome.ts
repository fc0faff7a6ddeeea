import type { AgentEvent, InvocationResult, ToolCall } from '@agentctl/core';

/** What one step of a test produced: its events, and its result or the error it ended with. */
export interface StepOutcome {
  events: AgentEvent[];
  result?: InvocationResult;
  error?: { code: string; message: string; agentPath?: string[] };
  /**
   * Ids of the calls an earlier step left waiting (a pause) that this step decided: the resume
   * announces them again as it runs them, but no model made them in this step.
   */
  resumed?: ReadonlySet<string>;
}

/** The tool calls the model made during the step, in order (pending ones and transfers included). */
export function callsOf(outcome: StepOutcome): ToolCall[] {
  const again = new Set(outcome.resumed);
  return outcome.events.flatMap((e) => {
    if (e.type !== 'tool_call') return [];
    if (again.delete(e.call.id)) return [];
    return [e.call];
  });
}

/**
 * Ids of the calls a step announced and left without a result: those its pause waits on, and the
 * agent-tool calls they wait inside, which a resume announces again.
 */
export function unresolvedCalls(outcome: StepOutcome): Set<string> {
  const open = new Set<string>();
  if (outcome.result?.status !== 'paused') return open;
  for (const e of outcome.events) {
    if (e.type === 'tool_call') open.add(e.call.id);
    else if (e.type === 'tool_result') open.delete(e.callId);
  }
  return open;
}

/**
 * Model calls and tokens of the step, from its usage events (so an errored step counts too) and the
 * models a fallback chain left, and how many calls had no usage reported by their provider (their
 * tokens are 0 or a guess).
 */
export function usageOf(outcome: StepOutcome): { modelCalls: number; tokens: number; unreported: number } {
  let modelCalls = 0;
  let tokens = 0;
  let unreported = 0;
  let previous: AgentEvent | undefined;
  for (const e of outcome.events) {
    const before = previous;
    previous = e;
    // A model of a fallback chain that failed was called too; its usage event, when the failure
    // reported tokens spent, comes just before and already counted it.
    if (e.type === 'model_fallback' && !(before?.type === 'usage' && before.model === e.from)) modelCalls++;
    if (e.type !== 'usage') continue;
    modelCalls += e.usage.iterations || 1;
    tokens += e.usage.totalTokens;
    unreported += e.usage.unreportedCalls ?? 0;
  }
  return { modelCalls, tokens, unreported };
}
