import { isPlainObject } from './plain-object.js';

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * What is wrong with a stored value as an event, or undefined when nothing is: the fields the
 * runtime reads of every event, and of a `message` event the message that goes to the model. A
 * session edited by hand is refused naming this, not run into a crash.
 */
export function eventShapeProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'an event is not a JSON object';
  if (typeof value.type !== 'string') return 'an event has no "type"';
  for (const key of ['id', 'invocationId', 'branch', 'author'] as const) {
    if (typeof value[key] !== 'string') return `a ${value.type} event's "${key}" is missing or not a string`;
  }
  if (typeof value.time !== 'number') return `a ${value.type} event's "time" is missing or not a number`;
  if (value.stateDelta !== undefined && !isPlainObject(value.stateDelta))
    return `a ${value.type} event's "stateDelta" is not an object`;
  if (value.type === 'message') return messageShapeProblem(value.message);
  return undefined;
}

function messageShapeProblem(message: unknown): string | undefined {
  if (!isPlainObject(message)) return 'a message event has no "message" object';
  if (!ROLES.has(message.role)) return `a message's "role" is ${JSON.stringify(message.role)}`;
  if (message.content !== null && message.content !== undefined && typeof message.content !== 'string')
    return `a ${message.role} message's "content" is not a string`;
  if (message.role === 'tool' && typeof message.toolCallId !== 'string')
    return 'a tool message has no "toolCallId"';
  if (message.toolCalls === undefined) return undefined;
  if (!Array.isArray(message.toolCalls)) return `a ${message.role} message's "toolCalls" is not a list`;
  for (const call of message.toolCalls) {
    if (!isPlainObject(call) || typeof call.id !== 'string' || typeof call.name !== 'string')
      return 'a tool call has no "id" or "name"';
  }
  return undefined;
}
