import { describe, expect, it } from 'vitest';
import {
  CANCELLED_RESULT,
  ensureToolResultsComplete,
  findPairingProblem,
  type Message,
} from '../src/index.js';
import { dropUnansweringResults } from '../src/loop/tool-pairing.js';

const call = (id: string) => ({ id, name: 't', arguments: {} });

describe('ensureToolResultsComplete', () => {
  it('adds a cancelled result for every call without one, keeping existing results first', () => {
    const history: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, toolCalls: [call('a'), call('b'), call('c')] },
      { role: 'tool', toolCallId: 'b', content: 'B' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: null, toolCalls: [call('d')] },
    ];
    const { messages, added } = ensureToolResultsComplete(history);
    expect(added).toBe(3);
    expect(messages.map((m) => `${m.role}:${m.toolCallId ?? ''}`)).toEqual([
      'user:',
      'assistant:',
      'tool:b',
      'tool:a',
      'tool:c',
      'user:',
      'assistant:',
      'tool:d',
    ]);
    expect(messages[3]).toMatchObject({ content: CANCELLED_RESULT, isError: true, name: 't' });
    expect(findPairingProblem(messages)).toBeUndefined();
    expect(findPairingProblem(history)).toBe('tool call a has no result before message 3');
  });

  it('returns the same array when nothing is missing', () => {
    const history: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, toolCalls: [call('a')] },
      { role: 'tool', toolCallId: 'a', content: 'A' },
    ];
    expect(ensureToolResultsComplete(history)).toEqual({ messages: history, added: 0 });
    expect(ensureToolResultsComplete(history).messages).toBe(history);
  });

  it('finds a result that answers no call', () => {
    expect(
      findPairingProblem([
        { role: 'user', content: 'x' },
        { role: 'tool', toolCallId: 'z', content: '' },
      ]),
    ).toMatch(/answers no open tool call/);
  });
});

describe('dropUnansweringResults', () => {
  it('leaves out results whose call is not right before them, and keeps the rest', () => {
    const call = (id: string): Message => ({
      role: 'assistant',
      content: null,
      toolCalls: [{ id, name: 't', arguments: {} }],
    });
    const result = (id: string): Message => ({ role: 'tool', toolCallId: id, content: id });
    const history: Message[] = [
      { role: 'user', content: 'q' },
      result('gone'),
      call('a'),
      result('a'),
      result('a'),
      { role: 'user', content: 'r' },
      result('b'),
    ];
    const kept = dropUnansweringResults(history);
    expect(kept.map((m) => m.content)).toEqual(['q', null, 'a', 'r']);
    expect(findPairingProblem(kept)).toBeUndefined();
    const whole = [history[0], history[2], history[3]];
    expect(dropUnansweringResults(whole)).toBe(whole);
  });
});
