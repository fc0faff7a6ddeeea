import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** Absolute path of the `schemas/` folder: the JSON Schemas the loader enforces. */
export const SCHEMA_DIR: string = fileURLToPath(new URL('../../../schemas/', import.meta.url)).replace(
  /[\\/]$/,
  '',
);

/** Every document kind, in the order they are documented. */
export const KINDS = ['project', 'agent', 'model', 'tool', 'toolset', 'middleware', 'memory'] as const;

/** One document kind. */
export type Kind = (typeof KINDS)[number];

const cache = new Map<string, object>();

/** The JSON Schema of one kind (`agent`, `model`, ...), or the entry schema that dispatches on `kind`. */
export function loadSchema(kind = 'agentctl'): object {
  const known = kind === 'agentctl' || kind === 'common' || (KINDS as readonly string[]).includes(kind);
  if (!known) throw new TypeError(`unknown schema "${kind}"; known: agentctl, ${KINDS.join(', ')}`);
  let schema = cache.get(kind);
  if (!schema) {
    schema = JSON.parse(readFileSync(`${SCHEMA_DIR}/${kind}.schema.json`, 'utf8')) as object;
    cache.set(kind, schema);
  }
  return schema;
}

let ajvInstance: Ajv2020 | undefined;

/** The one Ajv instance holding every schema (compiling is the slow part, so it is shared). */
export function schemaAjv(): Ajv2020 {
  if (!ajvInstance) {
    // verbose: errors carry their schema, which the error mapping reads for allowed keys and messages.
    const ajv = new Ajv2020({
      allErrors: true,
      verbose: true,
      strict: true,
      strictTypes: false,
      strictRequired: false,
    });
    for (const file of readdirSync(SCHEMA_DIR)) {
      if (file.endsWith('.schema.json')) ajv.addSchema(loadSchema(file.slice(0, -'.schema.json'.length)));
    }
    ajvInstance = ajv;
  }
  return ajvInstance;
}

/** The compiled validator of one kind. */
export function kindValidator(kind: Kind | 'agentctl'): ValidateFunction {
  const validate = schemaAjv().getSchema(`${kind}.schema.json`);
  if (!validate) throw new Error(`schema ${kind}.schema.json is missing from ${SCHEMA_DIR}`);
  return validate;
}
