import { afterEach, describe, expect, it } from 'vitest';
import type { ModelProvider } from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { anthropicText } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { createGoogleProvider } from '../packages/provider-google/src/index.js';
import { geminiText } from '../packages/provider-google/test/support/gemini-wire.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { type FakeServer, type SseEvent, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const options = (url: string) => ({ apiKey: 'sk-test-0123456789', baseURL: url, retry: { maxAttempts: 1 } });

// Each wire: its provider, an answer, and the path its SDK appends to the base URL.
const WIRES: [string, (url: string) => ModelProvider, SseEvent[], string][] = [
  ['openai', (url) => createOpenAIProvider(options(url)), openaiText('ok'), '/chat/completions'],
  ['anthropic', (url) => createAnthropicProvider(options(url)), anthropicText('ok'), '/v1/messages'],
  [
    'google',
    (url) => createGoogleProvider(options(url)),
    geminiText('ok'),
    '/v1beta/models/any-model:streamGenerateContent',
  ],
];

describe('a base_url behind a gateway', () => {
  it.each(WIRES)(
    '%s: a path prefix, with or without a trailing slash, and a query (Azure’s api-version) all reach the server as meant',
    async (_name, make, answer, path) => {
      const server = await startFakeServer([sse(answer), sse(answer), sse(answer)], '');
      servers.push(server);
      for (const base of [
        `${server.url}/gw/openai/deployments/gpt4`,
        `${server.url}/gw/openai/deployments/gpt4/`,
        `${server.url}/gw/openai/deployments/gpt4?api-version=2024-10-21`,
      ]) {
        const response = await make(base).chat({
          model: 'any-model',
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(response.content).toBe('ok');
      }
      const urls = server.requests.map((r) => new URL(r.url, server.url));
      expect(urls.map((u) => u.pathname)).toEqual(Array(3).fill(`/gw/openai/deployments/gpt4${path}`));
      expect(urls[2].searchParams.get('api-version')).toBe('2024-10-21');
    },
  );
});
