import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AgentEvent,
  type ChatParams,
  createAgent,
  createFallbackProvider,
  isFallbackError,
  type ModelProvider,
  ScriptModel,
  type StreamEvent,
} from '../src/index.js';

const ask = (text: string): ChatParams => ({
  model: 'primary-id',
  messages: [{ role: 'user', content: text }],
});

async function events(provider: ModelProvider, params: ChatParams): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of provider.stream(params)) out.push(event);
  return out;
}

const rateLimited = { message: 'HTTP 429: slow down', code: 'PROVIDER_ERROR' as const, retryable: true };

describe('a fallback chain', () => {
  it("passes a member's own retries on, naming the member, and still falls back after them", async () => {
    // A member that retried once (a network provider's own retry) and then gave up.
    const retrying: ModelProvider = {
      name: 'retrying',
      chat: () => Promise.reject(new Error('stream only')),
      async *stream() {
        yield { type: 'retry', attempt: 1, delayMs: 1, error: new Error('HTTP 429') };
        yield {
          type: 'error',
          error: new AgentError('HTTP 429: slow down', 'PROVIDER_ERROR', { retryable: true }),
        };
      },
    };
    const backup = new ScriptModel([{ text: 'from the backup' }]);
    const chain = createFallbackProvider({
      members: [
        { name: 'fast', provider: retrying },
        { name: 'steady', provider: backup },
      ],
    });
    const out = await events(chain, ask('one'));
    expect(out.map((e) => e.type).filter((t) => t !== 'token')).toEqual(['retry', 'fallback', 'done']);
    expect(out[0]).toMatchObject({ type: 'retry', model: 'fast', attempt: 1 });
    expect(out.at(-1)).toMatchObject({ response: { content: 'from the backup' } });
  });

  it('moves to the next model on a retryable failure, passes over the primary while it cools down, then asks it again', async () => {
    let clock = 1_000;
    const primary = new ScriptModel([{ error: rateLimited }, { text: 'primary is back' }], { record: true });
    const backup = new ScriptModel([{ text: 'from the backup' }, { text: 'backup again' }], { record: true });
    const chain = createFallbackProvider({
      members: [
        { name: 'fast', provider: primary },
        { name: 'steady', model: 'backup-id', provider: backup, pricing: { input: 1, output: 2 } },
      ],
      cooldownMs: 30_000,
      now: () => clock,
    });

    const first = await events(chain, ask('one'));
    expect(first.find((e) => e.type === 'fallback')).toMatchObject({ from: 'fast', to: 'steady' });
    expect(first.at(-1)).toMatchObject({
      type: 'done',
      response: {
        content: 'from the backup',
        model: 'backup-id',
        servedBy: { model: 'steady', pricing: { input: 1, output: 2 } },
      },
    });
    expect(backup.requests[0].model).toBe('backup-id');

    clock += 29_000;
    const second = await events(chain, ask('two'));
    expect(second.some((e) => e.type === 'fallback')).toBe(false);
    expect(second.at(-1)).toMatchObject({
      response: { content: 'backup again', servedBy: { model: 'steady' } },
    });

    clock += 2_000;
    const third = await events(chain, ask('three'));
    expect(third.at(-1)).toMatchObject({
      response: { content: 'primary is back', servedBy: { model: 'fast' } },
    });
    expect(primary.requests.map((r) => r.model)).toEqual(['primary-id', 'primary-id']);
    primary.assertConsumed();
    backup.assertConsumed();
  });

  it('does not move on after a failure a retry cannot fix, or after output was streamed', async () => {
    const refused = new ScriptModel([
      { error: { message: 'HTTP 401', code: 'PROVIDER_ERROR', retryable: false } },
    ]);
    const unused = new ScriptModel([]);
    const chain = createFallbackProvider({
      members: [
        { name: 'a', provider: refused },
        { name: 'b', provider: unused },
      ],
    });
    const list = await events(chain, ask('hi'));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ type: 'error', error: { message: 'HTTP 401' } });

    const broken: ModelProvider = {
      name: 'wire',
      chat: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'token', text: 'Hel' };
        yield { type: 'error', error: new AgentError('cut', 'MODEL_ERROR') };
      },
    };
    const after = createFallbackProvider({
      members: [
        { name: 'a', provider: broken },
        { name: 'b', provider: unused },
      ],
    });
    const cut = await events(after, ask('hi'));
    expect(cut.map((e) => e.type)).toEqual(['token', 'error']);
  });

  it('owns retries only when every model does, and passes a retry policy to each', async () => {
    const seen: unknown[] = [];
    const retrying = (name: string): ModelProvider => ({
      name,
      chat: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield {
          type: 'done',
          response: { content: name, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } },
        };
      },
      withRetry(policy) {
        seen.push([name, policy]);
        return retrying(`${name}+retry`);
      },
    });
    const both = createFallbackProvider({
      members: [
        { name: 'a', provider: retrying('a') },
        { name: 'b', provider: retrying('b') },
      ],
    });
    const configured = both.withRetry?.({ maxAttempts: 7 });
    expect(seen).toEqual([
      ['a', { maxAttempts: 7 }],
      ['b', { maxAttempts: 7 }],
    ]);
    expect((await configured?.chat(ask('hi')))?.content).toBe('a+retry');
    const mixed = createFallbackProvider({
      members: [
        { name: 'a', provider: retrying('a') },
        { name: 'offline', provider: new ScriptModel([]) },
      ],
    });
    expect(mixed.withRetry).toBeUndefined();
  });

  it('judges failures: retryable provider errors and timeouts move on, the rest do not', () => {
    expect(isFallbackError(new AgentError('429', 'PROVIDER_ERROR', { retryable: true }))).toBe(true);
    expect(isFallbackError(new AgentError('idle', 'TIMEOUT', { retryable: true }))).toBe(true);
    expect(isFallbackError(new AgentError('400', 'PROVIDER_ERROR', { retryable: false }))).toBe(false);
    expect(isFallbackError(new AgentError('cut after output', 'MODEL_ERROR'))).toBe(false);
    expect(isFallbackError(new AgentError('cancelled', 'ABORTED', { retryable: true }))).toBe(false);
    expect(isFallbackError(new Error('plain'))).toBe(false);
  });

  it('ends with the last error when every model fails', async () => {
    const chain = createFallbackProvider({
      members: [
        { name: 'a', provider: new ScriptModel([{ error: rateLimited }]) },
        { name: 'b', provider: new ScriptModel([{ error: { ...rateLimited, message: 'b is down too' } }]) },
      ],
    });
    const list = await events(chain, ask('hi'));
    expect(list.map((e) => e.type)).toEqual(['fallback', 'error']);
    expect(list.at(-1)).toMatchObject({ error: { message: 'b is down too' } });
  });

  it('tells the run which model answered, why it switched, and prices each call as its own model', async () => {
    const failed = new AgentError('HTTP 503: overloaded', 'PROVIDER_ERROR', {
      retryable: true,
      context: { status: 503, usage: { inputTokens: 100, outputTokens: 0 } },
    });
    const primary: ModelProvider = {
      name: 'wire',
      chat: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'error', error: failed };
      },
    };
    const backup = new ScriptModel([{ text: 'fine', usage: { inputTokens: 1000, outputTokens: 500 } }]);
    const provider = createFallbackProvider({
      members: [
        { name: 'fast', provider: primary, pricing: { input: 10, output: 10 } },
        { name: 'steady', provider: backup, pricing: { input: 1, output: 2 } },
      ],
    });
    const agent = createAgent({
      name: 'a',
      provider,
      model: 'primary-id',
      pricing: { input: 10, output: 10 },
    });
    const handle = agent.run('hi');
    const seen: AgentEvent[] = [];
    for await (const event of handle as AsyncIterable<AgentEvent>) seen.push(event);
    const result = await handle;
    expect(result.output).toBe('fine');
    expect(seen.find((e) => e.type === 'model_fallback')).toMatchObject({
      from: 'fast',
      to: 'steady',
      code: 'PROVIDER_ERROR',
      status: 503,
      reason: 'HTTP 503: overloaded',
    });
    const usage = seen.filter((e) => e.type === 'usage');
    expect(usage.map((e) => [e.model, e.usage.inputTokens, e.usage.estimatedCost])).toEqual([
      ['fast', 100, 0.001],
      ['steady', 1000, 0.002],
    ]);
    expect(seen.find((e) => e.type === 'run_end')).toMatchObject({
      usage: { inputTokens: 1100, outputTokens: 500, estimatedCost: 0.003 },
    });
  });
});
