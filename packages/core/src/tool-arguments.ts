import type { ToolCall } from './messages.js';
import { isPlainObject } from './plain-object.js';

/**
 * The arguments of a streamed tool call, from the JSON text the model sent: `{}` when it is empty,
 * malformed or not an object (use {@link toolCallFromText} to keep the call from running then).
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  return parsed(text) ?? {};
}

/**
 * A streamed tool call from the JSON text of its arguments. Malformed or non-object text is kept as
 * `malformedArguments`, so the loop tells the model instead of running the tool with `{}` (which a
 * tool whose arguments are all optional would accept).
 */
export function toolCallFromText(id: string, name: string, text: string): ToolCall {
  const value = parsed(text);
  if (value) return { id, name, arguments: value };
  return { id, name, arguments: {}, malformedArguments: text };
}

// Empty text is a call without arguments; undefined is text that is not a JSON object.
function parsed(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
