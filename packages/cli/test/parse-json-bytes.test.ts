import { describe, expect, it } from 'vitest';
import { parseJsonBytes } from '../src/commands/sessions/parse-json-bytes.js';

// Documents with every kind of value, and the traps of finding where a value ends: braces,
// brackets, quotes and backslashes inside strings, multi-byte characters, odd whitespace.
const DOCUMENTS = [
  '{"format":"agentctl-session","version":1,"session":{"id":"a","events":[{"x":"}]\\"{["},{"y":[1,2.5e3,-0,true,false,null]}],"state":{}},"children":[]}',
  '[ 1 ,\n\t"two" , {"three" : [ [], {} , [[[]]] ] } , "\\\\" , "\\u00e9 ünï ☃ 𝄞" ]',
  '{"__proto__":{"polluted":true},"a":1,"a":2,"b":{"a":3}}',
  '  "just a string with a \\" quote"  ',
  '12345',
  '{"nested":{"deep":{"deeper":{"deepest":["end"]}}},"after":"yes"}',
  '{}',
  '[]',
];

// Inputs JSON.parse refuses: the byte-wise path must refuse them too.
const BROKEN = [
  '{"a":1,}',
  '[1 2]',
  '{"a" 1}',
  '{"a":1',
  '"abc',
  '{} x',
  '{"a":tru}',
  '[1,]',
  '',
  '{"a":[1,2}',
  '{1:2}',
];

describe('parseJsonBytes', () => {
  it('parses what JSON.parse parses, the same, also when every container is taken apart', () => {
    for (const text of DOCUMENTS) {
      const bytes = Buffer.from(text, 'utf8');
      // A limit of 4 bytes sends every longer object and array through the byte-wise path.
      for (const longest of [undefined, 4]) {
        const parsed = parseJsonBytes(bytes, longest);
        expect(parsed, text).toEqual(JSON.parse(text));
        expect(JSON.stringify(parsed), text).toBe(JSON.stringify(JSON.parse(text)));
      }
    }
    // As JSON.parse: "__proto__" is an own key, and nothing is polluted.
    const odd = parseJsonBytes(Buffer.from(DOCUMENTS[2]!), 4) as Record<string, unknown>;
    expect(Object.keys(odd)).toEqual(['__proto__', 'a', 'b']);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
  });

  it('refuses what JSON.parse refuses, with a SyntaxError', () => {
    for (const text of BROKEN) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      for (const longest of [undefined, 4]) {
        expect(() => parseJsonBytes(Buffer.from(text), longest), `${text} (${longest})`).toThrow(SyntaxError);
      }
    }
  });

  it('names the byte where the JSON is wrong when it takes it apart', () => {
    expect(() => parseJsonBytes(Buffer.from('{"a":[1,2],"b" 3}'), 4)).toThrow(
      'Unexpected character "3" in JSON at byte 15',
    );
  });
});
