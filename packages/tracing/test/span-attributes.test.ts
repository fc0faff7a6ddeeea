import { describe, expect, it } from 'vitest';
import { type ChatAnswer, type ChatFacts, chatAttributes } from '../src/chat-facts.js';
import { AGENTCTL, GEN_AI, providerName } from '../src/gen-ai.js';
import { toolAttributes } from '../src/tool-facts.js';

// The attribute builders write their keys out (for speed) rather than reading GEN_AI: every key
// they make must still be one of the conventions' names agentctl declares.
describe('span attributes', () => {
  const known = new Set<string>([...Object.values(GEN_AI), ...Object.values(AGENTCTL)]);
  const facts: ChatFacts = {
    provider: 'openai',
    requestModel: 'm',
    agent: 'a',
    conversationId: 's',
    temperature: 0.5,
    topP: 0.9,
    maxTokens: 100,
    system: '[]',
    input: '[]',
  };
  const answer: ChatAnswer = {
    responseModel: 'm',
    finishReason: 'stop',
    inputTokens: 3,
    outputTokens: 4,
    cacheReadTokens: 1,
    cacheWriteTokens: 0,
    output: '[]',
  };

  it('of chat and tool spans use only the declared names, every one a chat or tool span can have', () => {
    const chat = Object.keys(chatAttributes(facts, answer));
    const unanswered = Object.keys(chatAttributes(facts, undefined));
    const tool = Object.keys(toolAttributes({ toolName: 't', callId: 'c', args: '{}' }));
    for (const key of [...chat, ...unanswered, ...tool]) expect(known).toContain(key);
    expect(chat).toHaveLength(17);
    expect(unanswered).toHaveLength(10);
    expect(tool).toHaveLength(5);
  });
});

describe('gen_ai.provider.name', () => {
  it("is the conventions' name of each provider agentctl ships, and agentctl's own name otherwise", () => {
    // In turns, so the kept last answer is not what is read.
    const names = ['google', 'openai', 'offline', 'anthropic', 'google', 'acme-local'].map(providerName);
    expect(names).toEqual(['gcp.gen_ai', 'openai', 'offline', 'anthropic', 'gcp.gen_ai', 'acme-local']);
  });
});
