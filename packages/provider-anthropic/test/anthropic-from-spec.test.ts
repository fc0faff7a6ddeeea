import type { StreamEvent } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicFromSpec } from '../src/index.js';
import { anthropicText, sse } from './support/anthropic-wire.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function last(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent | undefined> {
  let out: StreamEvent | undefined;
  for await (const event of iterable) out = event;
  return out;
}

describe('anthropicFromSpec', () => {
  it('builds without a key and fails at the first call naming the variable', async () => {
    const provider = anthropicFromSpec({
      model: 'claude-sonnet-4-5',
      api_key_env: 'AGENTCTL_TEST_MISSING_KEY',
    });
    expect(provider.name).toBe('anthropic');
    const event = await last(provider.stream({ model: '', messages: [{ role: 'user', content: 'hi' }] }));
    expect(event).toMatchObject({ type: 'error', error: { code: 'PROVIDER_ERROR' } });
    expect((event as { error: Error }).error.message).toBe(
      "anthropic model claude-sonnet-4-5: no API key; set AGENTCTL_TEST_MISSING_KEY (or api_key in the model's YAML)",
    );
  });

  it('applies max_output_tokens, prompt caching and thinking from YAML, and never sends temperature', async () => {
    server = await startFakeServer([sse(anthropicText('ok'))], '');
    const provider = anthropicFromSpec({
      model: 'claude-test',
      base_url: server.url,
      api_key: 'sk-ant-spec',
      temperature: 0.7,
      max_output_tokens: 512,
      timeout: '10s',
      retry: { max_attempts: 1 },
      options: { prompt_caching: true, thinking: { budget_tokens: 1024 } },
    });
    const response = await provider.chat({
      model: '',
      system: 'sys',
      temperature: 0.3,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.content).toBe('ok');
    const body = server.requests[0].body;
    expect(body).toMatchObject({
      model: 'claude-test',
      max_tokens: 512 + 1024,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
    });
    expect(body).not.toHaveProperty('temperature');
  });
});
