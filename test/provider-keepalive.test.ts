import { afterEach, describe, expect, it } from 'vitest';
import { type AgentError, isFallbackError, type ModelProvider } from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { anthropicText } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { type FakeServer, type SseEvent, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// A timeout of 800 ms against a server that keeps the connection alive every 200 ms for 1.2 s
// before its answer: it is never silent, so the call must not time out.
const options = (url: string) => ({
  apiKey: 'sk-test-0123456789',
  baseURL: url,
  timeout: 800,
  retry: { maxAttempts: 1 },
});
const ask = { model: 'any-model', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('keep-alive from a server that works before it answers', () => {
  it.each([
    [
      "anthropic's ping events, which the SDK never yields",
      '',
      (url: string) => createAnthropicProvider(options(url)),
      (events: SseEvent[]): SseEvent[] => [
        events[0],
        ...Array.from({ length: 6 }, () => ({ event: 'ping', data: { type: 'ping' } })),
        ...events.slice(1),
      ],
      anthropicText('Thought it through.', { size: 100 }),
    ],
    [
      'SSE comments (OpenRouter sends `: OPENROUTER PROCESSING`)',
      '/v1',
      (url: string) => createOpenAIProvider(options(url)),
      (events: SseEvent[]): SseEvent[] => [
        ...Array.from({ length: 6 }, () => ({ data: null, comment: 'OPENROUTER PROCESSING' })),
        ...events,
      ],
      openaiText('Thought it through.', { size: 100 }),
    ],
  ] as [string, string, (url: string) => ModelProvider, (e: SseEvent[]) => SseEvent[], SseEvent[]][])(
    '%s count as data for the timeout',
    async (_what, base, make, keepAlive, answer) => {
      const server = await startFakeServer([sse(keepAlive(answer), { delayMs: 200 })], base);
      servers.push(server);
      const response = await make(server.url).chat(ask);
      expect(response.content).toBe('Thought it through.');
      expect(server.requests).toHaveLength(1);
    },
  );
});

// A timeout of 100 ms against a server that keeps the connection alive every 20 ms and never
// answers: never silent, but after 10 times the timeout with nothing of the answer, it is stuck.
describe('keep-alive from a server that never answers', () => {
  // Retries allowed: an attempt already ten timeouts long is not made again (thirty, by default).
  const stuck = { ...options(''), timeout: 100, retry: { maxAttempts: 3, initialDelayMs: 1 } };
  const forever = (keepAlive: SseEvent) => Array.from({ length: 1000 }, () => keepAlive);
  it.each([
    [
      'anthropic',
      '',
      (url: string) => createAnthropicProvider({ ...stuck, baseURL: url }),
      [anthropicText('x')[0], ...forever({ event: 'ping', data: { type: 'ping' } })],
    ],
    [
      'openai',
      '/v1',
      (url: string) => createOpenAIProvider({ ...stuck, baseURL: url }),
      forever({ data: null, comment: 'OPENROUTER PROCESSING' }),
    ],
  ] as [string, string, (url: string) => ModelProvider, SseEvent[]][])(
    '%s: fails as TIMEOUT, saying only keep-alives came, without a retry',
    async (name, base, make, events) => {
      const server = await startFakeServer(
        Array.from({ length: 3 }, () => sse(events, { delayMs: 20 })),
        base,
      );
      servers.push(server);
      const error = await make(server.url)
        .chat(ask)
        .catch((e: AgentError) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as AgentError).code).toBe('TIMEOUT');
      expect((error as AgentError).message).toBe(
        `${name} model any-model: timed out, only keep-alives, nothing of the answer, for 1000 ms: 10 times the model's timeout (not retried: a server that only kept the call alive that long would likely do it again; raise the model's timeout to wait longer)`,
      );
      expect((error as AgentError).context).toMatchObject({
        timeoutMs: 1000,
        stalled: true,
        retryable: false,
      });
      expect(server.requests).toHaveLength(1);
      // Another model of a chain may still answer.
      expect(isFallbackError(error)).toBe(true);
    },
  );

  it('a stream that stops its answer halfway and only pings after it breaks as a MODEL_ERROR', async () => {
    const answer = openaiText('Half of it', { size: 5 });
    const events = [...answer.slice(0, 3), ...forever({ data: null, comment: 'keep-alive' })];
    const server = await startFakeServer([sse(events, { delayMs: 20 })], '/v1');
    servers.push(server);
    const error = await createOpenAIProvider({ ...stuck, baseURL: server.url })
      .chat(ask)
      .catch((e: AgentError) => e);
    expect((error as AgentError).code).toBe('MODEL_ERROR');
    expect((error as AgentError).message).toBe(
      "openai model any-model: the stream broke after the answer had begun (only keep-alives, nothing of the answer, for 1000 ms: 10 times the model's timeout)",
    );
  });
});
