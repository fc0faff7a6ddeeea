import type { AgentEvent } from '@agentctl/core';

/**
 * A test of a run's events for the text of its answer: a `text_delta` of the run's own invocation.
 * What an agent tool's run says (its own invocation, under the caller's) is that tool's business:
 * the answer gets its result, and the answer given whole never holds those words, so a stream
 * leaves them out too. The first event read names the run's invocation (its `run_start`).
 */
export function ownWords(): (event: AgentEvent) => event is Extract<AgentEvent, { type: 'text_delta' }> {
  let invocationId: string | undefined;
  return (event): event is Extract<AgentEvent, { type: 'text_delta' }> => {
    invocationId ??= event.invocationId;
    return event.type === 'text_delta' && event.invocationId === invocationId;
  };
}
