import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AgentEvent,
  createAgent,
  InMemorySessionStore,
  type Middleware,
  type ModelProvider,
  Runner,
  retry,
  type StreamEvent,
  timeout,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const overloaded = { error: { message: 'overloaded', retryable: true } };

async function eventsOf(run: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  try {
    for await (const event of run) events.push(event);
  } catch {
    // The events up to the failure are what is asserted.
  }
  return events;
}

// A provider whose every call waits until its signal aborts it, counting the calls it was asked.
function hangingProvider(): ModelProvider & { calls: number } {
  const provider = {
    name: 'hanging',
    calls: 0,
    chat: () => Promise.reject(new Error('stream only')),
    async *stream(params: { signal?: AbortSignal }): AsyncGenerator<StreamEvent> {
      provider.calls++;
      await new Promise<void>((resolve) => {
        if (params.signal?.aborted) resolve();
        params.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      yield { type: 'error', error: new AgentError('cancelled', 'ABORTED') };
    },
  };
  return provider;
}

describe('attempts of the retry middleware', () => {
  it('are model calls: each failed attempt has its usage event and counts as a failed call', async () => {
    const model = scriptedModel([overloaded, overloaded, { text: 'finally' }]);
    const agent = createAgent({
      name: 'a',
      provider: model,
      middleware: [retry({ maxAttempts: 3, initialDelay: 1 })],
    });
    const events = await eventsOf(agent.run('x'));
    const usage = events.flatMap((e) => (e.type === 'usage' ? [e.usage] : []));
    expect(usage.map((u) => [u.iterations, u.failedCalls])).toEqual([
      [1, 1],
      [1, 1],
      [1, undefined],
    ]);
    const end = events.find((e) => e.type === 'run_end');
    expect(end).toMatchObject({ status: 'complete', usage: { iterations: 3, failedCalls: 2 } });
  });

  it('count against an invocation limit on model calls, which stops the retries', async () => {
    const model = scriptedModel([overloaded, overloaded, overloaded, overloaded, { text: 'never' }]);
    const agent = createAgent({
      name: 'a',
      provider: model,
      middleware: [retry({ maxAttempts: 5, initialDelay: 1 })],
    });
    const run = new Runner({ agent, store: new InMemorySessionStore() }).run({
      input: 'x',
      limits: { maxModelCalls: 2 },
    });
    await expect(run.invocation).rejects.toMatchObject({
      code: 'MAX_ITERATIONS_EXCEEDED',
      context: { scope: 'invocation', limit: 2 },
    });
    // The third attempt went over the limit; no fourth was made.
    expect(model.remaining).toHaveLength(2);
  });

  it('count once each when a middleware gives up on them before they unwind', async () => {
    const provider = hangingProvider();
    // Aborts the call after 10 ms and fails at once, with an error a retry may fix.
    const impatient: Middleware = async (action, next) => {
      if (action.type !== 'model_call') return next();
      const stop = new AbortController();
      const request = { ...action.payload.request, signal: stop.signal };
      next({ ...action, payload: { ...action.payload, request } }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));
      stop.abort();
      throw new AgentError('gave up', 'PROVIDER_ERROR', { retryable: true });
    };
    const agent = createAgent({
      name: 'a',
      provider,
      middleware: [retry({ maxAttempts: 2, initialDelay: 1 }), impatient],
    });
    const events = await eventsOf(agent.run('x'));
    expect(provider.calls).toBe(2);
    // Let the abandoned calls unwind: a late one must not add a call.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const end = events.find((e) => e.type === 'run_end');
    expect(end).toMatchObject({ status: 'error', usage: { iterations: 2, failedCalls: 2 } });
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(2);
  });

  it('a call a timeout gave up on counts once, however late it unwinds', async () => {
    const provider = hangingProvider();
    const agent = createAgent({ name: 'a', provider, middleware: [timeout({ model: 20 })] });
    const events = await eventsOf(agent.run('x'));
    const end = events.find((e) => e.type === 'run_end');
    expect(end).toMatchObject({ status: 'error', usage: { iterations: 1, failedCalls: 1 } });
  });
});
