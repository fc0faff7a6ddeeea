import type { Options } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { ajv2020Class, SCHEMA_DIR } from '../schemas.js';
import { precompiledValidators } from './precompiled-validators.js';

/** The draft 2020-12 meta-schema, which `output_schema` and tool `parameters` must follow. */
export const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/** Ajv options of the JSON Schema check; the precompiled meta-schema is generated with them too. */
export const META_AJV_OPTIONS: Options = { strict: false, validateFormats: false };

// Keywords whose compilation cannot fail once the meta-schema accepted them: a schema made of only
// these needs no Ajv. Anything else ($ref, pattern, $id, another dialect's $schema, keywords ajv
// does not know...) takes the full compile, so the answer is always Ajv's.
const SUBSCHEMA = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
const SUBSCHEMA_MAP = new Set(['properties', '$defs', 'dependentSchemas']);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const PLAIN = new Set([
  'type',
  'required',
  'enum',
  'const',
  'description',
  'title',
  'default',
  'examples',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
  'dependentRequired',
  'format',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);

function plain(schema: unknown, top: boolean): boolean {
  if (typeof schema === 'boolean') return true;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (PLAIN.has(key)) continue;
    if (key === '$schema' && top && value === META_SCHEMA_ID) continue;
    if (SUBSCHEMA.has(key)) {
      if (!plain(value, false)) return false;
    } else if (SUBSCHEMA_MAP.has(key)) {
      if (typeof value !== 'object' || value === null) return false;
      if (!Object.values(value).every((sub) => plain(sub, false))) return false;
    } else if (SUBSCHEMA_LIST.has(key)) {
      if (!Array.isArray(value) || !value.every((sub) => plain(sub, false))) return false;
    } else return false;
  }
  return true;
}

let checker: Ajv2020 | undefined;

function compileProblem(schema: unknown): string | undefined {
  checker ??= new (ajv2020Class())(META_AJV_OPTIONS);
  try {
    checker.compile(schema as object);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Why a JSON Schema (draft 2020-12) does not compile, or undefined when it does. The usual schema
 * is checked by the precompiled meta-schema alone, so loading a project does not start Ajv.
 */
export function jsonSchemaProblem(
  schema: unknown,
  meta = precompiledValidators(SCHEMA_DIR)?.meta,
): string | undefined {
  if (!meta || !plain(schema, true)) return compileProblem(schema);
  if (meta(schema)) return undefined;
  // The message Ajv's compile throws: "schema is invalid: data/... must ..., data/... must ...".
  const errors = (meta.errors ?? []).map((e) => `data${e.instancePath} ${e.message}`).join(', ');
  return `schema is invalid: ${errors}`;
}
