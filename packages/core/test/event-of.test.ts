// An event built by `eventOf` is the spread it replaces: the same keys, in the same order, with the
// same values, for the payloads written as literals and for every other payload.
import { describe, expect, it } from 'vitest';
import type { EventPayloads, EventType } from '../src/events.js';
import { eventOf } from '../src/invocation/event-of.js';

function both<T extends EventType>(type: T, payload: EventPayloads[T]) {
  const built = eventOf('id', 'inv', 'a.b', 'a', 1700000000000, type, payload);
  const spread = {
    id: 'id',
    invocationId: 'inv',
    branch: 'a.b',
    author: 'a',
    time: 1700000000000,
    type,
    ...payload,
  };
  return { built, spread };
}

const message = { role: 'assistant' as const, content: 'hi' };
const call = { id: 'c1', name: 'add', arguments: { a: 1 } };
const usage = {
  inputTokens: 1,
  outputTokens: 2,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  totalTokens: 3,
  iterations: 1,
};

describe('eventOf', () => {
  const cases: Array<[EventType, Record<string, unknown>]> = [
    ['message', { message }],
    ['tool_call', { call }],
    [
      'tool_result',
      {
        callId: 'c1',
        name: 'add',
        content: '2',
        isError: false,
        errorCode: undefined,
        duration: 0.5,
        hasImage: undefined,
      },
    ],
    ['usage', { usage, total: { ...usage }, model: 'm', duration: 3 }],
    ['text_delta', { text: 'hi' }],
    ['agent_start', { agent: 'a' }],
    ['agent_end', { agent: 'a', output: 'done' }],
    ['run_start', { input: 'go' }],
    // Other keys, fewer keys, or the same keys in another order: spread as they are.
    ['message', { message, extra: 1 }],
    ['tool_result', { callId: 'c1', name: 'add', content: '2', isError: true, duration: 1 }],
    ['agent_end', { output: 'done', agent: 'a' }],
    ['usage', { usage, model: 'm', total: usage, duration: 3 }],
  ];

  it.each(cases)('builds a %s event with the keys, order and values of the spread', (type, payload) => {
    const { built, spread } = both(type, payload as never);
    expect(Object.keys(built)).toEqual(Object.keys(spread));
    expect(JSON.stringify(built)).toBe(JSON.stringify(spread));
    for (const key of Object.keys(spread)) expect((built as never)[key]).toBe((spread as never)[key]);
  });

  it('spreads a payload that inherits enumerable keys (own keys only, as the spread does)', () => {
    const payload = Object.assign(Object.create({ inherited: true }), { message });
    const { built, spread } = both('message', payload);
    expect(Object.keys(built)).toEqual(Object.keys(spread));
    expect('inherited' in built).toBe(false);
  });
});
