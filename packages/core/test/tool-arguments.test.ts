import { describe, expect, it } from 'vitest';
import { isPlainObject, parseToolArguments, toolCallFromText } from '../src/index.js';

// The one parser of streamed tool-call arguments the OpenAI and Anthropic assemblers share.
describe('parseToolArguments', () => {
  it('parses a JSON object', () => {
    expect(parseToolArguments('{"city":"Oslo","days":[1,2]}')).toEqual({ city: 'Oslo', days: [1, 2] });
  });

  it('gives {} for empty, malformed or non-object text', () => {
    for (const text of ['', '   ', '{"city":', 'null', '[1,2]', '"Oslo"', '42'])
      expect(parseToolArguments(text), text).toEqual({});
  });
});

describe('toolCallFromText', () => {
  it('makes a call from a JSON object, and from empty text a call without arguments', () => {
    expect(toolCallFromText('c1', 'weather', '{"city":"Oslo"}')).toEqual({
      id: 'c1',
      name: 'weather',
      arguments: { city: 'Oslo' },
    });
    expect(toolCallFromText('c2', 'now', ' ')).toEqual({ id: 'c2', name: 'now', arguments: {} });
  });

  it('keeps malformed or non-object text as malformedArguments', () => {
    for (const text of ['{"city":', 'null', '[1,2]', '"Oslo"', '42'])
      expect(toolCallFromText('c', 'weather', text), text).toEqual({
        id: 'c',
        name: 'weather',
        arguments: {},
        malformedArguments: text,
      });
  });
});

describe('isPlainObject', () => {
  it('is true for objects only, not null or arrays', () => {
    expect([{}, { a: 1 }, null, [], 'x', 1, undefined].map(isPlainObject)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
