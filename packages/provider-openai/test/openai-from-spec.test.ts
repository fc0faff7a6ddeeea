import type { StreamEvent } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiFromSpec } from '../src/index.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';
import { openaiText, sse } from './support/openai-wire.js';

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

describe('openaiFromSpec', () => {
  it('builds without a key and fails at the first call naming the variable', async () => {
    const provider = openaiFromSpec({ model: 'gpt-4.1-mini', api_key_env: 'AGENTCTL_TEST_MISSING_KEY' });
    expect(provider.name).toBe('openai');
    const event = await last(provider.stream({ model: '', messages: [{ role: 'user', content: 'hi' }] }));
    expect(event?.type).toBe('error');
    const error = (event as { error: Error & { code: string } }).error;
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toBe(
      "openai model gpt-4.1-mini: no API key; set AGENTCTL_TEST_MISSING_KEY (or api_key in the model's YAML)",
    );
  });

  it('applies the spec model, temperature, token limit, retry and options to every call', async () => {
    server = await startFakeServer([
      { status: 503, json: { error: { message: 'busy' } } },
      sse(openaiText('ok')),
    ]);
    const provider = openaiFromSpec({
      model: 'llama3.2',
      base_url: server.url,
      temperature: 0.1,
      max_output_tokens: 64,
      retry: { max_attempts: 2, initial_delay: '1ms', max_delay: '1s' },
      timeout: '5s',
      options: { max_tokens_field: 'max_tokens', extraBody: { parallel_tool_calls: false } },
    });
    // A loopback server needs no key.
    const response = await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body).toMatchObject({
      model: 'llama3.2',
      temperature: 0.1,
      max_tokens: 64,
      parallel_tool_calls: false,
    });
    expect(server.requests[1].body).not.toHaveProperty('max_completion_tokens');
  });

  it('rejects a timeout it cannot read, naming the field', () => {
    expect(() => openaiFromSpec({ model: 'm', api_key: 'k', timeout: 'soon' })).toThrow(
      'timeout: expected ms or a duration such as 30s, got "soon"',
    );
  });
});
