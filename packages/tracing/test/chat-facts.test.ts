import type { ModelResponse, ObservedModelCall } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { chatAnswer, chatAttributes, chatFacts } from '../src/chat-facts.js';

// A chat span's usage attributes: what the provider counted, and none when it counted nothing.
const call: ObservedModelCall = {
  invocationId: 'i1',
  branch: 'bot',
  agent: 'bot',
  provider: 'openai',
  request: { model: 'local-model', messages: [{ role: 'user', content: 'hi' }] },
  started: 0,
};

const answered = (usage: ModelResponse['usage']) =>
  chatAttributes(
    chatFacts(call, undefined, undefined),
    chatAnswer({ content: 'Hello.', toolCalls: [], usage }, 'local-model', undefined),
  );

describe('chat span usage', () => {
  it('records the tokens the provider reported, cached input counted as input', () => {
    expect(answered({ inputTokens: 10, outputTokens: 4, cacheReadTokens: 6 })).toMatchObject({
      'gen_ai.usage.input_tokens': 16,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.usage.cache_read.input_tokens': 6,
    });
  });

  it('records no usage when the provider reported none, rather than 0 or an estimate as the cost', () => {
    const attributes = answered({ inputTokens: 0, outputTokens: 3, unreported: true });
    expect(attributes['gen_ai.response.model']).toBe('local-model');
    expect(Object.keys(attributes).filter((k) => k.startsWith('gen_ai.usage.'))).toEqual([]);
  });
});
