import { describe, expect, it } from 'vitest';
import { createAgent, findPairingProblem, InMemoryMemory, type Message, windowOf } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { add } from './support/tools.js';

const user = (content: string): Message => ({ role: 'user', content });
const said = (content: string): Message => ({ role: 'assistant', content });

describe('max_history', () => {
  it('keeps the last N messages, never starting with a tool result, with the user message in front', () => {
    const history: Message[] = [
      user('first'),
      said('a'),
      user('compute'),
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'add', arguments: {} }] },
      { role: 'tool', toolCallId: 'c1', content: '2' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c2', name: 'add', arguments: {} }] },
      { role: 'tool', toolCallId: 'c2', content: '3' },
    ];
    const window = windowOf(history, { messages: 3 });
    expect(window.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(window[0].content).toBe('compute');
    expect(findPairingProblem(window)).toBeUndefined();
    expect(windowOf(history, { messages: 50 })).toBe(history);
    expect(windowOf(history, undefined)).toBe(history);
  });

  it('sends the tool results ending the history with the call that asked for them', () => {
    const call: Message = {
      role: 'assistant',
      content: null,
      toolCalls: [
        { id: 'c1', name: 'read', arguments: {} },
        { id: 'c2', name: 'read', arguments: {} },
      ],
    };
    const history: Message[] = [
      user('first'),
      said('a'),
      user('read both'),
      call,
      { role: 'tool', toolCallId: 'c1', content: 'x'.repeat(40_000) },
      { role: 'tool', toolCallId: 'c2', content: 'y'.repeat(40_000) },
    ];
    for (const window of [{ messages: 1 }, { messages: 2 }, { tokens: 100 }]) {
      const sent = windowOf(history, window);
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
      expect(sent[1]).toBe(call);
      expect(findPairingProblem(sent)).toBeUndefined();
    }
  });

  it('bounds by tokens too, always keeping the newest message', () => {
    const history = [user('x'.repeat(400)), said('y'.repeat(400)), user('z'.repeat(4000))];
    expect(windowOf(history, { tokens: 50 }).map((m) => m.content?.[0])).toEqual(['z']);
    expect(windowOf(history, { tokens: 250 }).map((m) => m.content?.[0])).toEqual(['z']);
    expect(windowOf(history, { tokens: 5000 })).toBe(history);
  });

  it('sends a bounded window while the stored conversation stays complete', async () => {
    const memory = new InMemoryMemory();
    const turns = Array.from({ length: 8 }, (_, i) => ({ text: `answer ${i}` }));
    const model = scriptedModel([
      ...turns,
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'two' },
    ]);
    const agent = createAgent({ name: 'a', provider: model, memory, maxHistory: 4, tools: [add] });
    for (let i = 0; i < 9; i++) await agent.run(`question ${i}`, { sessionId: 's' });
    for (const request of model.requests) {
      expect(request.messages.length).toBeLessThanOrEqual(5);
      expect(findPairingProblem(request.messages)).toBeUndefined();
    }
    expect(model.requests.at(-1)?.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
    ]);
    expect(await memory.load('s')).toHaveLength(20);
  });
});
