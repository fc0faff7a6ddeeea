import { isPlainObject } from './plain-object.js';

/**
 * The arguments of a streamed tool call, from the JSON text the model sent: `{}` when it is empty,
 * malformed or not an object, so the call still reaches the loop, where schema validation reports
 * the problem to the model instead of failing the run.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}
