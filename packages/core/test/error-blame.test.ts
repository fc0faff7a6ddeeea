import { describe, expect, it } from 'vitest';
import { AgentError, createAgent, defineTool, type ModelProvider, Runner } from '../src/index.js';

describe('errors say who is to blame', () => {
  it('a fault of ours (a plain exception in the runtime) is INTERNAL_ERROR, not MODEL_ERROR', async () => {
    const agent = createAgent({
      name: 'a',
      provider: { name: 'x', chat: async () => ({}) as never, stream: () => ({}) as never },
      instruction: () => {
        throw new TypeError('cannot read properties of undefined');
      },
    });
    const error = await new Runner({ agent }).run({ input: 'hi' }).invocation.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('INTERNAL_ERROR');
    expect((error as AgentError).blame).toBe('internal');
  });

  it('a provider that throws a plain error is a PROVIDER_ERROR blamed on the provider', async () => {
    const broken: ModelProvider = {
      name: 'broken',
      chat: () => Promise.reject(new Error('socket hang up')),
      // biome-ignore lint/correctness/useYield: fails before its first event
      stream: async function* () {
        throw new Error('socket hang up');
      },
    };
    const agent = createAgent({
      name: 'a',
      provider: broken,
      tools: [defineTool({ name: 't', execute: () => 1 })],
    });
    const error = (await agent.run('hi').result.catch((e: unknown) => e)) as AgentError;
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.blame).toBe('provider');
  });
});
