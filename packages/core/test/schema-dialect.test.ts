import { describe, expect, it } from 'vitest';
import { schemaValidator } from '../src/index.js';

describe('tool parameter schemas with a $schema marker', () => {
  const body = {
    type: 'object',
    properties: { city: { type: 'string', enum: ['Paris', 'Oslo'] } },
    required: ['city'],
    additionalProperties: false,
  };

  it.each([
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft/2020-12/schema',
  ])('compiles with $schema %s and still checks the arguments', async (dialect) => {
    const validate = await schemaValidator({ $schema: dialect, ...body });
    expect(validate({ city: 'Oslo' })).toEqual({ ok: true });
    const bad = validate({ city: 'Rome', extra: 1 });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.errors.join('\n')).toMatch(/arguments\.city must be equal to one of/);
  });

  it('leaves the schema object it was given unchanged', async () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...body };
    await schemaValidator(schema);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });
});

describe('schemaValidator cache', () => {
  it('shares one compiled validator between schema objects with the same text (a reload makes new ones)', async () => {
    // Ajv's compile is the costly one to share (a plain schema compiles in microseconds without it):
    // `format` sends this schema to Ajv.
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, d: { format: 'date' } },
      required: ['n'],
    };
    const first = await schemaValidator(schema);
    const again = await schemaValidator(structuredClone(schema));
    expect(again).toBe(first);
    expect(again({ n: 1 })).toEqual({ ok: true });
    expect(again({})).toMatchObject({ ok: false });
    const other = await schemaValidator({ ...schema, required: [] });
    expect(other).not.toBe(first);
    expect(other({})).toEqual({ ok: true });
  });
});
