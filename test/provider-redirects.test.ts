import { afterEach, describe, expect, it } from 'vitest';
import type { AgentError, ModelProvider } from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { anthropicText } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { createGoogleProvider } from '../packages/provider-google/src/index.js';
import { geminiText } from '../packages/provider-google/test/support/gemini-wire.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const KEY = 'sk-test-SECRET123';
const GATEWAY = 'gw-test-SECRET456';
const options = (url: string) => ({
  apiKey: KEY,
  baseURL: url,
  headers: { 'Helicone-Auth': `Bearer ${GATEWAY}` },
  retry: { maxAttempts: 3, initialDelayMs: 1 },
});

// Each wire's request path under its base URL, and its provider with a credential header.
const WIRES: [string, string, string, (url: string) => ModelProvider][] = [
  ['openai', '/v1', '/chat/completions', (url) => createOpenAIProvider(options(url))],
  ['anthropic', '', '/v1/messages', (url) => createAnthropicProvider(options(url))],
  [
    'google',
    '',
    '/v1beta/models/any-model:streamGenerateContent?alt=sse',
    (url) => createGoogleProvider(options(url)),
  ],
];

async function failureOf(provider: ModelProvider): Promise<AgentError> {
  for await (const event of provider.stream({
    model: 'any-model',
    messages: [{ role: 'user', content: 'hi' }],
  }))
    if (event.type === 'error') return event.error;
  throw new Error('the call did not fail');
}

describe('a base_url that redirects', () => {
  it.each(WIRES)(
    '%s: the redirect is not followed, so neither the request nor a key reaches the other host, and the error names where to point base_url',
    async (_name, base, path, make) => {
      const elsewhere = await startFakeServer([], base);
      const origin = await startFakeServer([], base);
      servers.push(elsewhere, origin);
      const target = `${elsewhere.url}${path}`;
      // 307 keeps the method and body: followed, the whole request would go to the other host.
      origin.reply({ status: 307, headers: { location: target }, body: '' });
      const error = await failureOf(make(origin.url));
      expect(elsewhere.requests).toEqual([]);
      expect(origin.requests).toHaveLength(1);
      expect(error.code).toBe('PROVIDER_ERROR');
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(`the server redirects to ${target}, which agentctl does not follow`);
      expect(error.message).toContain('set base_url to the address it moved to');
    },
  );

  it('a 301 is not turned into a GET that fails with a 405 elsewhere', async () => {
    const origin = await startFakeServer([]);
    servers.push(origin);
    origin.reply({ status: 301, headers: { location: '/moved/v1/chat/completions' }, body: '' });
    const error = await failureOf(WIRES[0][3](origin.url));
    expect(origin.requests.map((r) => r.method)).toEqual(['POST']);
    expect(error.message).toBe(
      `openai model any-model failed with HTTP 301: the server redirects to ${origin.url.replace('/v1', '')}/moved/v1/chat/completions, which agentctl does not follow (the request and its key would go there): set base_url to the address it moved to`,
    );
  });
});

describe("the model's timeout is the only limit on a call's silence", () => {
  const SYMBOL = Symbol.for('undici.globalDispatcher.1');
  type Dispatcher = { dispatch(options: Record<string, unknown>, handler: unknown): boolean };
  const slot = globalThis as unknown as Record<symbol, Dispatcher | undefined>;

  it.each([
    ['openai', '/v1', (url: string) => createOpenAIProvider(options(url)), () => sse(openaiText('hi'))],
    ['anthropic', '', (url: string) => createAnthropicProvider(options(url)), () => sse(anthropicText('hi'))],
    ['google', '', (url: string) => createGoogleProvider(options(url)), () => sse(geminiText('hi'))],
  ] as const)('%s: undici’s own 300 s header and body timeouts are off', async (_name, base, make, reply) => {
    const server = await startFakeServer([reply()], base);
    servers.push(server);
    new Headers();
    const original = slot[SYMBOL];
    if (!original) throw new Error("Node's fetch has no dispatcher");
    const seen: Record<string, unknown>[] = [];
    slot[SYMBOL] = {
      dispatch: (opts, handler) => {
        seen.push(opts);
        return original.dispatch(opts, handler);
      },
    };
    try {
      const response = await make(server.url).chat({
        model: 'any-model',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(response.content).toBe('hi');
    } finally {
      slot[SYMBOL] = original;
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ headersTimeout: 0, bodyTimeout: 0 });
  });
});
