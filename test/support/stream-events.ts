import type { AgentError, ModelProvider, StreamEvent } from '@agentctl/core';

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

/** The error a provider's first call ends with (one user message, the provider's own model). */
export async function firstCallError(provider: ModelProvider): Promise<AgentError> {
  return lastError(await events(provider.stream({ model: '', messages: [{ role: 'user', content: 'hi' }] })));
}
