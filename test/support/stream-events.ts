import type { AgentError, StreamEvent } from '@agentctl/core';

/** Every event of a provider stream, in order. */
export async function events(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** The error of a stream's final `error` event; throws when the stream ended otherwise. */
export function lastError(list: StreamEvent[]): AgentError {
  const last = list.at(-1);
  if (last?.type !== 'error') throw new Error(`expected an error event, got ${JSON.stringify(last)}`);
  return last.error as AgentError;
}

/** The last event of a provider stream (all of it read). */
export async function lastEvent(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent | undefined> {
  let out: StreamEvent | undefined;
  for await (const event of iterable) out = event;
  return out;
}
