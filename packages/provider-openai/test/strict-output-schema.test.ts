import { describe, expect, it } from 'vitest';
import { strictOutputProblems } from '../src/strict-output-schema.js';

const paths = (schema: Record<string, unknown>) => strictOutputProblems(schema).map((p) => p.path.join('/'));

describe('strictOutputProblems', () => {
  it('accepts a schema inside the subset, nested objects, nullable fields and $defs included', () => {
    expect(
      strictOutputProblems({
        type: 'object',
        properties: {
          a: { type: ['string', 'null'] },
          b: { type: 'array', items: { $ref: '#/$defs/item' } },
          c: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        },
        required: ['a', 'b', 'c'],
        additionalProperties: false,
        $defs: {
          item: {
            type: 'object',
            properties: { x: { type: 'integer' } },
            required: ['x'],
            additionalProperties: false,
          },
        },
      }),
    ).toEqual([]);
  });

  it('refuses a root that is no object or a union, open objects, arrays without one items schema, and unsupported keywords', () => {
    expect(paths({ type: 'array', items: { type: 'string' } })).toEqual(['type']);
    expect(paths({ type: 'object', anyOf: [], additionalProperties: false })).toEqual(['anyOf']);
    expect(
      paths({
        type: 'object',
        properties: {
          list: { type: 'array' },
          pair: { type: 'array', items: [{ type: 'string' }] },
          open: { type: 'object', additionalProperties: true },
          cond: { type: 'string', not: { const: 'x' } },
        },
        required: ['list', 'pair', 'open', 'cond'],
        additionalProperties: false,
        $defs: {
          loose: { type: 'object', properties: { y: { type: 'string' } }, additionalProperties: false },
        },
      }),
    ).toEqual([
      'properties/list',
      'properties/pair/items',
      'properties/open/additionalProperties',
      'properties/cond/not',
      '$defs/loose/properties/y',
    ]);
  });
});
