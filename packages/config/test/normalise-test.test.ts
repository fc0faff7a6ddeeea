import { describe, expect, it } from 'vitest';
import { normaliseTest } from '../src/index.js';

describe('normaliseTest', () => {
  it('maps every field of a test to its definition', () => {
    expect(
      normaliseTest({
        kind: 'test',
        name: 't',
        description: 'd',
        agent: 'a',
        model: { a: 'offline/echo' },
        state: { k: 1 },
        turns: [
          {
            user: 'hi',
            expect: {
              output: { contains: 'a', equals: 'b', matches: 'c', schema: { type: 'object' } },
              transfer: 'x',
              tool_calls: [{ name: 'n', args: { y: 1 } }],
              no_tool_calls: true,
              state: { s: 2 },
              max: { model_calls: 3, tokens: 4 },
              pending: ['p'],
              error: 'TIMEOUT',
              judge: { model: 'j', criteria: 'c' },
            },
          },
          { approve: ['p'], deny: ['q'], reason: 'r', answer: { ask: 'yes' } },
        ],
      }),
    ).toEqual({
      name: 't',
      description: 'd',
      agent: 'a',
      model: { a: 'offline/echo' },
      state: { k: 1 },
      turns: [
        {
          user: 'hi',
          approve: [],
          deny: [],
          answer: {},
          expect: {
            output: { contains: 'a', equals: 'b', matches: 'c', schema: { type: 'object' } },
            transfer: 'x',
            toolCalls: [{ name: 'n', args: { y: 1 } }],
            noToolCalls: true,
            state: { s: 2 },
            max: { modelCalls: 3, tokens: 4 },
            pending: ['p'],
            error: 'TIMEOUT',
            judge: { model: 'j', criteria: 'c' },
          },
        },
        {
          approve: ['p'],
          deny: ['q'],
          reason: 'r',
          answer: { ask: 'yes' },
          expect: { noToolCalls: false },
        },
      ],
    });
  });
});
