import type { AgentEvent } from '@agentctl/core';

let counter = 0;

/** A message event with an optional state delta. */
export function messageEvent(content: string, stateDelta?: Record<string, unknown>): AgentEvent {
  counter++;
  return {
    type: 'message',
    id: `e${counter}`,
    invocationId: 'inv',
    branch: 'agent',
    author: 'agent',
    time: Date.now(),
    message: { role: 'assistant', content },
    ...(stateDelta ? { stateDelta } : {}),
  };
}
