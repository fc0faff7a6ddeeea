import { describe, expect, it } from 'vitest';
import { compilePlainSchema } from '../src/loop/plain-schema.js';
import {
  ajvCheck,
  ajvCompileError,
  randomSchema,
  randomValue,
  seeded,
  valuesFor,
} from './support/schema-corpus.js';

// The plain validator must be Ajv, as the model and the user see it: same verdict and the same
// errors (path, message, params: the wording is made of them) in the same order, value by value.
function expectSameAsAjv(schema: unknown, values: readonly unknown[]): { valid: number; invalid: number } {
  const plain = compilePlainSchema(schema);
  expect(plain, JSON.stringify(schema)).toBeDefined();
  const reference = ajvCheck(schema);
  let valid = 0;
  for (const value of values) {
    const expected = reference(value);
    expect(plain?.(value), `${JSON.stringify(schema)} on ${JSON.stringify(value)}`).toEqual(expected);
    if (expected.length === 0) valid++;
  }
  return { valid, invalid: values.length - valid };
}

describe('the plain JSON Schema validator gives Ajv’s verdicts and errors', () => {
  // Ajv's compile of each schema is the slow part: a generous bound for a loaded machine.
  it('on 400 generated schemas × 12 values each, both verdicts well represented', {
    timeout: 120_000,
  }, () => {
    const random = seeded(16);
    let valid = 0;
    let invalid = 0;
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const schema = randomSchema(random);
      for (const key of Object.keys(schema as object)) seen.add(key);
      const counts = expectSameAsAjv(schema, [
        ...valuesFor(schema, random, 9),
        randomValue(random),
        randomValue(random),
        {},
      ]);
      valid += counts.valid;
      invalid += counts.invalid;
    }
    // The corpus exercises both outcomes and every supported keyword at the top level.
    expect(valid).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(500);
    expect([...seen].sort()).toEqual(
      [
        'additionalProperties',
        'anyOf',
        'const',
        'default',
        'description',
        'enum',
        'exclusiveMaximum',
        'exclusiveMinimum',
        'items',
        'maxItems',
        'maxLength',
        'maxProperties',
        'maximum',
        'minItems',
        'minLength',
        'minProperties',
        'minimum',
        'multipleOf',
        'oneOf',
        'pattern',
        'properties',
        'required',
        'title',
        'type',
      ].sort(),
    );
  });

  it('on hand-picked cases where Ajv’s order or reading is easy to get wrong', () => {
    const cases: Array<[unknown, unknown[]]> = [
      // A single type with keywords of its own reports its type error after enum/const.
      [{ type: 'string', minLength: 2, enum: ['ab', 'cd'] }, [5, 'x', 'ab', null]],
      [{ type: 'string', enum: ['ab'] }, [5, 'x']],
      // integer has no keyword group: its type error comes first, number keywords still run.
      [{ type: 'integer', minimum: 2, multipleOf: 2 }, [1.5, 1, 4, 3, 'x', Number.POSITIVE_INFINITY]],
      [{ type: ['integer', 'null'], maximum: 3 }, [null, 4, 2.5, 'a']],
      [{ type: ['array', 'object'] }, [[], {}, null, 'x']],
      [{ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, [0, 1, 0.5, Number.NaN]],
      [{ multipleOf: 0.1 }, [0.3, 0.30000000000000004, 1e21, 'x']],
      // required before additionalProperties before properties, whatever the schema's order.
      [
        {
          properties: { a: { type: 'string' }, 'x/y': { type: 'number' }, 'm~n': { const: 1 } },
          additionalProperties: false,
          required: ['a', 'b'],
          type: 'object',
        },
        [{ a: 1, c: 2, 'x/y': 'q', 'm~n': 2 }, {}, { a: 'ok', b: 1 }],
      ],
      [
        { type: 'object', additionalProperties: { type: 'integer' }, properties: { a: true } },
        [{ a: 'x', b: 'y', 'c/d': 1.5 }],
      ],
      // An inherited property counts as present, as Ajv reads it.
      [
        { type: 'object', required: ['toString'], properties: { toString: { type: 'string' } } },
        [{}, { toString: 'x' }],
      ],
      [
        { type: 'array', items: { type: 'object', required: ['id'] }, minItems: 1, maxItems: 2 },
        [[], [{}, { id: 1 }, 3]],
      ],
      [{ type: 'string', minLength: 2, maxLength: 2, pattern: '^\\p{L}+$' }, ['😀😀', '😀', 'ab', 'a1']],
      [{ anyOf: [{ type: 'string' }, { type: 'number', minimum: 3 }] }, [1, 'x', 5, null]],
      [{ oneOf: [{ type: 'number' }, { type: 'integer' }, { minimum: 0 }] }, [1.5, 2, -1, 'x']],
      [{ oneOf: [true, { type: 'string' }, false] }, ['x', 1]],
      [{ properties: { a: false }, additionalProperties: true }, [{ a: 1 }, { b: 1 }]],
      [{ enum: [1, '1', null, true] }, [1, '1', null, true, false, 2, { a: 1 }]],
      [{ const: 'x' }, ['x', 'y', null]],
      [{ const: null }, [null, 0]],
      [
        { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', maxProperties: 1 },
        [{ a: 1, b: 2 }, {}],
      ],
      [
        {
          type: 'object',
          properties: Object.fromEntries('abcdefghij'.split('').map((n) => [n, { type: 'integer' }])),
          additionalProperties: false,
        },
        [{ a: 1, k: 2, j: 'x' }],
      ],
    ];
    for (const [schema, values] of cases) expectSameAsAjv(schema, values);
  });

  it('leaves to Ajv every schema it does not fully know, and every schema Ajv refuses', () => {
    const unsupported: unknown[] = [
      { type: 'string', format: 'date' },
      { $ref: '#/$defs/a', $defs: { a: { type: 'string' } } },
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      { type: 'array', uniqueItems: true },
      { type: 'array', prefixItems: [{ type: 'string' }] },
      { type: 'array', items: false },
      { allOf: [{ type: 'string' }] },
      { not: { type: 'string' } },
      JSON.parse('{"if":{"type":"string"},"then":{"minLength":1}}'),
      { type: 'object', properties: { a: { type: 'string', format: 'email' } } },
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' },
      { $id: 'https://example.com/x', type: 'string' },
      { 'x-vendor': true, type: 'string' },
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
      { enum: [{ a: 1 }] },
      { const: [1] },
      { enum: Array.from({ length: 200 }, (_, i) => i) },
    ];
    for (const schema of unsupported)
      expect(compilePlainSchema(schema), JSON.stringify(schema)).toBeUndefined();
    // Schemas Ajv refuses to compile: handed to it, so its error reaches the user unchanged.
    const refused: unknown[] = [
      { type: 'strin' },
      { type: ['string', 'string'] },
      { type: [] },
      { type: 'object', required: ['a', 'a'] },
      { type: 'object', required: 'a' },
      { enum: [] },
      { minLength: -1 },
      { minLength: 1.5 },
      { maximum: '3' },
      { multipleOf: 0 },
      { pattern: '(' },
      { anyOf: [] },
      { oneOf: {} },
      { properties: { a: 3 } },
      { title: 5 },
      { description: null },
      { readOnly: 'yes' },
      { examples: {} },
    ];
    for (const schema of refused) {
      expect(ajvCompileError(schema), JSON.stringify(schema)).toBeDefined();
      expect(compilePlainSchema(schema), JSON.stringify(schema)).toBeUndefined();
    }
  });
});
