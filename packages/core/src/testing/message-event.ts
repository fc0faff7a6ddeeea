import type { AgentEvent } from '../events.js';

let counter = 0;

/** An assistant `message` event with a fresh id, carrying `stateDelta` when given: the unit of session store tests. */
export function messageEvent(content: string, stateDelta?: Record<string, unknown>): AgentEvent {
  counter++;
  return {
    type: 'message',
    id: `event-${counter}`,
    invocationId: 'test',
    branch: 'agent',
    author: 'agent',
    time: Date.now(),
    message: { role: 'assistant', content },
    ...(stateDelta ? { stateDelta } : {}),
  };
}
