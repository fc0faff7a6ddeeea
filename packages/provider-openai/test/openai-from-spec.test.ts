import { describe, expect, it } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { firstCallError } from '../../../test/support/stream-events.js';
import { fakeServers } from '../../../test/support/wire-harness.js';
import { openaiFromSpec } from '../src/index.js';
import { openaiText } from './support/openai-wire.js';

const start = fakeServers('/v1');

describe('openaiFromSpec', () => {
  it('builds without a key and fails at the first call naming the variable', async () => {
    const provider = openaiFromSpec({
      name: 'm',
      provider: 'openai',
      model: 'gpt-4.1-mini',
      apiKeyEnv: 'AGENTCTL_TEST_MISSING_KEY',
      options: {},
    });
    expect(provider.name).toBe('openai');
    const error = await firstCallError(provider);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toBe(
      "openai model gpt-4.1-mini: no API key; set AGENTCTL_TEST_MISSING_KEY (or api_key in the model's YAML)",
    );
  });

  it('applies the spec model, temperature, token limit, retry and options to every call', async () => {
    const server = await start([
      { status: 503, json: { error: { message: 'busy' } } },
      sse(openaiText('ok')),
    ]);
    const provider = openaiFromSpec({
      name: 'm',
      provider: 'openai',
      model: 'llama3.2',
      baseUrl: server.url,
      temperature: 0.1,
      maxOutputTokens: 64,
      retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1000 },
      timeoutMs: 5000,
      options: { maxTokensField: 'max_tokens' },
      extraBody: { seed: 7 },
    });
    // A loopback server needs no key.
    const response = await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body).toMatchObject({
      model: 'llama3.2',
      temperature: 0.1,
      max_tokens: 64,
      seed: 7,
    });
    expect(server.requests[1].body).not.toHaveProperty('max_completion_tokens');
  });

  it('sends reasoning effort and parallel_tool_calls, the latter only on requests with tools', async () => {
    const server = await start([sse(openaiText('ok')), sse(openaiText('ok'))]);
    const provider = openaiFromSpec({
      name: 'm',
      provider: 'openai',
      model: 'o4-mini',
      baseUrl: server.url,
      reasoning: { effort: 'high' },
      parallelToolCalls: false,
      options: {},
    });
    const tool = { name: 'look', description: 'look', parameters: { type: 'object', properties: {} } };
    await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }], tools: [tool] });
    await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests[0].body).toMatchObject({ reasoning_effort: 'high', parallel_tool_calls: false });
    expect(server.requests[1].body).toMatchObject({ reasoning_effort: 'high' });
    expect(server.requests[1].body).not.toHaveProperty('parallel_tool_calls');
  });

  it('sends organization and headers on every request, and strict: true on structured output when strict_output is set', async () => {
    const server = await start([sse(openaiText('{}')), sse(openaiText('{}'))]);
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    const build = (strictOutput: boolean | undefined) =>
      openaiFromSpec({
        name: 'm',
        provider: 'openai',
        model: 'gpt-4.1-mini',
        baseUrl: server.url,
        options: { organization: 'org-acme', headers: { 'x-team': 'desk' }, strictOutput },
      });
    const ask = { model: '', messages: [{ role: 'user' as const, content: 'hi' }] };
    await build(true).chat({ ...ask, responseFormat: { type: 'json_schema', schema } });
    await build(undefined).chat({ ...ask, responseFormat: { type: 'json_schema', schema } });
    expect(server.requests[0].headers).toMatchObject({ 'openai-organization': 'org-acme', 'x-team': 'desk' });
    expect(server.requests[0].body).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } },
    });
    expect(server.requests[1].body).toMatchObject({ response_format: { json_schema: { schema } } });
    expect(server.requests[1].body.response_format.json_schema).not.toHaveProperty('strict');
  });
});
