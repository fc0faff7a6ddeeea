import { describe, expect, it } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { firstCallError } from '../../../test/support/stream-events.js';
import { fakeServers } from '../../../test/support/wire-harness.js';
import { anthropicFromSpec } from '../src/index.js';
import { anthropicText } from './support/anthropic-wire.js';

const start = fakeServers('');

describe('anthropicFromSpec', () => {
  it('builds without a key and fails at the first call naming the variable', async () => {
    const provider = anthropicFromSpec({
      name: 'm',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKeyEnv: 'AGENTCTL_TEST_MISSING_KEY',
      options: {},
    });
    expect(provider.name).toBe('anthropic');
    const error = await firstCallError(provider);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toBe(
      "anthropic model claude-sonnet-4-5: no API key; set AGENTCTL_TEST_MISSING_KEY (or api_key in the model's YAML)",
    );
  });

  it('applies max_output_tokens, prompt caching, thinking and headers from YAML, and never sends temperature', async () => {
    const server = await start([sse(anthropicText('ok'))]);
    const provider = anthropicFromSpec({
      name: 'm',
      provider: 'anthropic',
      model: 'claude-test',
      baseUrl: server.url,
      apiKey: 'sk-ant-spec',
      temperature: 0.7,
      maxOutputTokens: 512,
      timeoutMs: 10_000,
      retry: { maxAttempts: 1 },
      reasoning: { budgetTokens: 1024 },
      options: { promptCaching: true, headers: { 'x-team': 'desk' } },
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
    expect(server.requests[0].headers['x-team']).toBe('desk');
  });

  it('maps reasoning effort to a thinking budget, parallel_tool_calls: false and extra_body onto the wire', async () => {
    const server = await start([sse(anthropicText('ok'))]);
    const provider = anthropicFromSpec({
      name: 'm',
      provider: 'anthropic',
      model: 'claude-test',
      baseUrl: server.url,
      apiKey: 'sk-ant-spec',
      maxOutputTokens: 1000,
      reasoning: { effort: 'medium' },
      parallelToolCalls: false,
      extraBody: { metadata: { user_id: 'u1' } },
      options: {},
    });
    const tool = { name: 'look', description: 'look', parameters: { type: 'object', properties: {} } };
    await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }], tools: [tool] });
    expect(server.requests[0].body).toMatchObject({
      max_tokens: 1000 + 4096,
      thinking: { type: 'enabled', budget_tokens: 4096 },
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      metadata: { user_id: 'u1' },
    });
  });

  it('adds the thinking budget to the default answer limit of 4096 when the model sets no max_output_tokens', async () => {
    const server = await start([sse(anthropicText('ok'))]);
    const provider = anthropicFromSpec({
      name: 'm',
      provider: 'anthropic',
      model: 'claude-test',
      baseUrl: server.url,
      apiKey: 'sk-ant-spec',
      reasoning: { budgetTokens: 2048 },
      options: {},
    });
    await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests[0].body).toMatchObject({
      max_tokens: 4096 + 2048,
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
  });
});
