/**
 * What OpenAI's strict Structured Outputs (`strict: true`, the model option `strict_output`)
 * refuses in a response schema, checked before a request is sent. Kept apart from the provider so
 * `validate` can ask without loading the SDK.
 */

import { isPlainObject } from '@agentctl/core';

/** One thing strict mode refuses, at a path inside the schema. */
export interface StrictSchemaProblem {
  path: Array<string | number>;
  message: string;
  /** The problem is the keyword at `path` itself (unsupported, misplaced). */
  key?: boolean;
}

// Keywords the API refuses in strict mode (the openai SDK's own list, `toStrictJsonSchema`):
// composition other than anyOf, conditionals, and the object, array and content constraints it
// cannot decode against.
const UNSUPPORTED = [
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$recursiveAnchor',
  '$recursiveRef',
  'additionalItems',
  'allOf',
  'contains',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'else',
  'if',
  'maxContains',
  'maxProperties',
  'minContains',
  'minProperties',
  'not',
  'patternProperties',
  'prefixItems',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
  'uniqueItems',
];

const STRICT = 'strict structured output (strict_output: true)';

/**
 * The problems OpenAI's strict mode has with `schema`: the root must be an object (not a union),
 * every object must set `additionalProperties: false` and list each of its properties in
 * `required` (an optional one is written nullable, `type: [string, "null"]`), every array needs one
 * `items` schema, and keywords outside its subset are refused.
 *
 * @example
 * strictOutputProblems({ type: 'object', properties: { a: { type: 'string' } } });
 * // two problems: additionalProperties missing, `a` not in required
 */
export function strictOutputProblems(schema: Record<string, unknown>): StrictSchemaProblem[] {
  const out: StrictSchemaProblem[] = [];
  if (!typesOf(schema).includes('object'))
    out.push({
      path: schema.type === undefined ? [] : ['type'],
      message: `${STRICT} needs the root to be \`type: object\``,
    });
  if (schema.anyOf !== undefined)
    out.push({
      path: ['anyOf'],
      key: true,
      message: `${STRICT} refuses \`anyOf\` at the root: the root must be one object`,
    });
  visit(schema, [], out);
  return out;
}

function visit(node: unknown, path: Array<string | number>, out: StrictSchemaProblem[]): void {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const schema = node as Record<string, unknown>;
  for (const keyword of UNSUPPORTED) {
    if (schema[keyword] !== undefined)
      out.push({ path: [...path, keyword], key: true, message: `${STRICT} does not support \`${keyword}\`` });
  }
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  const types = typesOf(schema);
  if (types.includes('object') || properties !== undefined) {
    if (schema.additionalProperties === undefined)
      out.push({ path, message: `${STRICT} needs \`additionalProperties: false\` on every object` });
    else if (schema.additionalProperties !== false)
      out.push({
        path: [...path, 'additionalProperties'],
        message: `${STRICT} needs \`additionalProperties: false\``,
      });
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const key of Object.keys(properties ?? {})) {
      if (!required.includes(key))
        out.push({
          path: [...path, 'properties', key],
          key: true,
          message: `${STRICT} needs every property in \`required\`; \`${key}\` is not (write an optional one as nullable: \`type: [string, "null"]\`)`,
        });
    }
  }
  if (types.includes('array') && schema.items === undefined)
    out.push({ path, message: `${STRICT} needs \`items\` on every array` });
  if (Array.isArray(schema.items))
    out.push({
      path: [...path, 'items'],
      message: `${STRICT} does not support tuple \`items\` (a list of schemas)`,
    });
  for (const [key, child] of Object.entries(properties ?? {}))
    visit(child, [...path, 'properties', key], out);
  if (!Array.isArray(schema.items)) visit(schema.items, [...path, 'items'], out);
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = schema[union];
    if (Array.isArray(branches))
      for (const [i, child] of branches.entries()) visit(child, [...path, union, i], out);
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    if (isPlainObject(schema[defs]))
      for (const [key, child] of Object.entries(schema[defs])) visit(child, [...path, defs, key], out);
  }
}

function typesOf(schema: Record<string, unknown>): unknown[] {
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}
