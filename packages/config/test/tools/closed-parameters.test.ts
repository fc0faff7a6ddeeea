import { describe, expect, it } from 'vitest';
import { closedParameters } from '../../src/tools/closed-parameters.js';

describe('closedParameters', () => {
  const path = { path: { type: 'string' } };

  it('closes an object schema that declares properties and says nothing of others', () => {
    expect(closedParameters({ type: 'object', properties: path })).toEqual({
      type: 'object',
      properties: path,
      additionalProperties: false,
    });
    expect(closedParameters({ properties: path })).toMatchObject({ additionalProperties: false });
    // No parameters: the tool takes no arguments.
    expect(closedParameters(undefined)).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('keeps a schema that says what it wants, composes others, or is free-form', () => {
    for (const schema of [
      { type: 'object', properties: path, additionalProperties: true },
      { type: 'object', properties: path, additionalProperties: { type: 'string' } },
      { type: 'object', properties: path, unevaluatedProperties: false },
      { type: 'object', properties: path, patternProperties: { '^x_': {} } },
      { type: 'object', properties: path, allOf: [{ properties: { mode: {} } }] },
      { type: 'object', properties: path, $ref: '#/$defs/more' },
      { type: 'object' },
    ]) {
      expect(closedParameters(schema)).toBe(schema);
    }
  });
});
