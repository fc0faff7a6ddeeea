import { type AgentError, createAgent, Runner } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { wireHarness } from '../../../test/support/wire-harness.js';
import { createOpenAIProvider } from '../src/index.js';

const { setup } = wireHarness({
  apiKey: 'k',
  basePath: '/v1',
  model: 'gpt-test',
  create: createOpenAIProvider,
});

describe('a failed OpenAI call keeps its facts', () => {
  it('an HTTP error carries provider, status, type, code, request id and retryable', async () => {
    const { provider } = await setup(
      [
        {
          status: 429,
          headers: { 'x-request-id': 'req_abc', 'retry-after': '600' },
          json: {
            error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
          },
        },
      ],
      { retry: { maxAttempts: 1 } },
    );
    const agent = createAgent({ name: 'a', provider, model: 'gpt-test' });
    const error = (await new Runner({ agent })
      .run({ input: 'hi' })
      .invocation.catch((e: unknown) => e)) as AgentError;
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.blame).toBe('provider');
    expect(error.context).toMatchObject({
      provider: 'openai',
      status: 429,
      type: 'requests',
      code: 'rate_limit_exceeded',
      requestId: 'req_abc',
      retryable: true,
    });
  });
});
