import type { AgentEvent, EventPayloads, EventType } from '../events.js';

// The payloads the loop emits most (a run of five tool steps emits some thirty events), each with its
// keys in the order the loop writes them.
const MESSAGE = ['message'];
const TOOL_CALL = ['call'];
const TOOL_RESULT = ['callId', 'name', 'content', 'isError', 'errorCode', 'duration', 'hasImage'];
const USAGE = ['usage', 'total', 'model', 'duration'];
const TEXT = ['text'];
const AGENT = ['agent'];
const AGENT_END = ['agent', 'output'];

/**
 * The event `{ id, invocationId, branch, author, time, type, ...payload }`. For the commonest
 * payloads it is written as one object literal of their shape: a spread after other properties
 * copies the payload key by key through the runtime (a few percent of a run's instructions),
 * where a literal is one allocation of a known shape. A payload with other keys, or the same keys
 * in another order, is spread as before, so every event has the same keys in the same order.
 */
export function eventOf<T extends EventType>(
  id: string,
  invocationId: string,
  branch: string,
  author: string,
  time: number,
  type: T,
  payload: EventPayloads[T],
): AgentEvent {
  const p = payload as Record<string, unknown>;
  switch (type) {
    case 'message':
      if (keysAre(p, MESSAGE))
        return { id, invocationId, branch, author, time, type, message: p.message } as AgentEvent;
      break;
    case 'tool_call':
      if (keysAre(p, TOOL_CALL))
        return { id, invocationId, branch, author, time, type, call: p.call } as AgentEvent;
      break;
    case 'tool_result':
      if (keysAre(p, TOOL_RESULT)) {
        return {
          id,
          invocationId,
          branch,
          author,
          time,
          type,
          callId: p.callId,
          name: p.name,
          content: p.content,
          isError: p.isError,
          errorCode: p.errorCode,
          duration: p.duration,
          hasImage: p.hasImage,
        } as AgentEvent;
      }
      break;
    case 'usage':
      if (keysAre(p, USAGE)) {
        return {
          id,
          invocationId,
          branch,
          author,
          time,
          type,
          usage: p.usage,
          total: p.total,
          model: p.model,
          duration: p.duration,
        } as AgentEvent;
      }
      break;
    case 'text_delta':
      if (keysAre(p, TEXT))
        return { id, invocationId, branch, author, time, type, text: p.text } as AgentEvent;
      break;
    case 'agent_start':
      if (keysAre(p, AGENT))
        return { id, invocationId, branch, author, time, type, agent: p.agent } as AgentEvent;
      break;
    case 'agent_end':
      if (keysAre(p, AGENT_END)) {
        return {
          id,
          invocationId,
          branch,
          author,
          time,
          type,
          agent: p.agent,
          output: p.output,
        } as AgentEvent;
      }
      break;
    default:
      break;
  }
  return { id, invocationId, branch, author, time, type, ...payload } as AgentEvent;
}

// True when the payload's enumerable keys are `keys`, in that order (inherited ones included, so a
// payload with any fails and is spread). Payloads are JSON data: their types have no symbol keys.
function keysAre(payload: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in payload) if (key !== keys[i++]) return false;
  return i === keys.length;
}
