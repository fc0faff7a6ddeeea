import { describe, expect, it } from 'vitest';
import { isPlainObject, parseToolArguments } from '../src/index.js';

// The one parser of streamed tool-call arguments the OpenAI and Anthropic assemblers share.
describe('parseToolArguments', () => {
  it('parses a JSON object', () => {
    expect(parseToolArguments('{"city":"Oslo","days":[1,2]}')).toEqual({ city: 'Oslo', days: [1, 2] });
  });

  it('gives {} for empty, malformed or non-object text, so schema validation reports it to the model', () => {
    for (const text of ['', '   ', '{"city":', 'null', '[1,2]', '"Oslo"', '42'])
      expect(parseToolArguments(text), text).toEqual({});
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
