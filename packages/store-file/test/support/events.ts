import type { AgentEvent } from '@agentctl/core';

let counter = 0;

/** An assistant message event, optionally carrying a state delta. */
export function messageEvent(text: string, stateDelta?: Record<string, unknown>): AgentEvent {
  counter++;
  return {
    type: 'message',
    id: `e${counter}`,
    invocationId: 'inv',
    branch: 'agent',
    author: 'agent',
    time: Date.now(),
    message: { role: 'assistant', content: text },
    ...(stateDelta ? { stateDelta } : {}),
  };
}
