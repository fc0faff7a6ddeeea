import { type AgentError, type AgentEvent, createAgent, Runner } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { type FakeReply, sse } from '../../../test/support/fake-server.js';
import { wireHarness } from '../../../test/support/wire-harness.js';
import { createAnthropicProvider } from '../src/index.js';
import { anthropicError, anthropicText } from './support/anthropic-wire.js';

const { setup } = wireHarness({
  apiKey: 'sk-ant-test-0123456789',
  basePath: '',
  model: 'claude-test',
  create: createAnthropicProvider,
});

async function runner(replies: FakeReply[]) {
  const { provider } = await setup(replies, { retry: { maxAttempts: 1 } });
  return new Runner({ agent: createAgent({ name: 'a', provider, model: 'claude-test' }) });
}

// message_start (612 input tokens reported), then an overloaded error event before any text.
function overloadedAfterStart(): FakeReply {
  const start = anthropicText('x', { usage: { input_tokens: 612, output_tokens: 0 } })[0];
  const overloaded = {
    event: 'error',
    data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  };
  return sse([start, overloaded]);
}

describe('a failed Anthropic call keeps its facts', () => {
  it('counts the input tokens reported before a mid-stream error, and says what the error was', async () => {
    const run = (await runner([overloadedAfterStart()])).run({ input: 'hi' });
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const error = (await run.invocation.catch((e: unknown) => e)) as AgentError;
    const usage = events.find((e) => e.type === 'usage');
    expect(usage).toMatchObject({ usage: { inputTokens: 612 } });
    expect(events.find((e) => e.type === 'run_end')).toMatchObject({ usage: { inputTokens: 612 } });
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.blame).toBe('provider');
    expect(error.context).toMatchObject({ provider: 'anthropic', type: 'overloaded_error', retryable: true });
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      context: { provider: 'anthropic', type: 'overloaded_error', retryable: true, blame: 'provider' },
    });
  });

  it('the tokens of a failed call count against the invocation limit', async () => {
    const run = (await runner([overloadedAfterStart()])).run({ input: 'hi', limits: { maxTokens: 100 } });
    const error = (await run.invocation.catch((e: unknown) => e)) as AgentError;
    expect(error.code).toBe('MAX_TOKENS_EXCEEDED');
  });

  it('an HTTP error carries status, type, request id and whether a retry could help', async () => {
    const run = (
      await runner([
        anthropicError(401, 'authentication_error', 'invalid x-api-key', { 'request-id': 'req_401' }),
      ])
    ).run({
      input: 'hi',
    });
    const error = (await run.invocation.catch((e: unknown) => e)) as AgentError;
    expect(error.context).toMatchObject({
      provider: 'anthropic',
      status: 401,
      type: 'authentication_error',
      requestId: 'req_401',
      retryable: false,
    });
  });
});
