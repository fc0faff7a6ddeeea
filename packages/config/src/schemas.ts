import { readdirSync, readFileSync } from 'node:fs';
import type { Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { configAssets } from './assets.js';
import { precompiledValidators } from './load/precompiled-validators.js';
import { loaderSchema } from './schema/loader-schema.js';
import { loaderPluginSchema } from './schema/plugin-schema.js';

/** Absolute path of the `schemas/` folder: the JSON Schemas the loader enforces. */
export const SCHEMA_DIR: string = configAssets().schemaDir;

/** Every document kind, in the order they are documented. */
export const KINDS = [
  'project',
  'agent',
  'model',
  'tool',
  'toolset',
  'middleware',
  'memory',
  'test',
  'schedule',
] as const;

/** One document kind. */
export type Kind = (typeof KINDS)[number];

/** Ajv options of the kind validators, shared by the runtime compile and the build-time code generation. */
export const SCHEMA_AJV_OPTIONS: Options = {
  // verbose: errors carry their schema, which the error mapping reads for allowed keys and messages.
  allErrors: true,
  verbose: true,
  strict: true,
  strictTypes: false,
  strictRequired: false,
};

/** The Ajv 2020 class, loaded on first call. */
export function ajv2020Class(): typeof Ajv2020 {
  // ajv is CommonJS and costs ~40 ms to load: required on first use only, since a build ships the
  // validators precompiled and a start-up then never needs it.
  return (configAssets().require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020;
}

const cache = new Map<string, object>();

/** The JSON Schema of one kind (`agent`, `model`, ...), or the entry schema that dispatches on `kind`. */
export function loadSchema(kind = 'agentctl'): object {
  const known =
    kind === 'agentctl' ||
    kind === 'common' ||
    kind === 'plugins' ||
    (KINDS as readonly string[]).includes(kind);
  if (!known) throw new TypeError(`unknown schema "${kind}"; known: agentctl, ${KINDS.join(', ')}`);
  let schema = cache.get(kind);
  if (!schema) {
    schema = JSON.parse(readFileSync(`${SCHEMA_DIR}/${kind}.schema.json`, 'utf8')) as object;
    cache.set(kind, schema);
  }
  return schema;
}

/** Ajv with every schema of `schemas/` added, made with these options. */
export function createSchemaAjv(options: Options = SCHEMA_AJV_OPTIONS): Ajv2020 {
  const ajv = new (ajv2020Class())(options);
  for (const file of readdirSync(SCHEMA_DIR)) {
    if (!file.endsWith('.schema.json')) continue;
    const name = file.slice(0, -'.schema.json'.length);
    // Plugin options are checked by the plugin-options rule against the registry in use, and some
    // definitions (what each type of agent has, a cron pattern...) by rules of their own.
    const schema = name === 'plugins' ? loaderPluginSchema() : loaderSchema(name);
    ajv.addSchema(schema);
  }
  return ajv;
}

let ajvInstance: Ajv2020 | undefined;

/** The one Ajv instance holding every schema (compiling is the slow part, so it is shared). */
export function schemaAjv(): Ajv2020 {
  ajvInstance ??= createSchemaAjv();
  return ajvInstance;
}

/**
 * Ajv options of plugin options validators: the kinds' options, without the meta-schema check. A
 * plugin's schema is code, not a user's file: compiling the meta-schema (and adding every kind's
 * schema) cost a start-up checking one tool's options ~80 ms more.
 */
export const OPTIONS_AJV_OPTIONS: Options = { ...SCHEMA_AJV_OPTIONS, validateSchema: false };

/** An Ajv for plugin options schemas: of the schemas, only `common.schema.json`, which they refer to. */
export function createOptionsAjv(options: Options = OPTIONS_AJV_OPTIONS): Ajv2020 {
  const ajv = new (ajv2020Class())(options);
  // As the kind schemas: what a rule checks in its own words (a time zone) is left to the rule.
  ajv.addSchema(loaderSchema('common'));
  return ajv;
}

let optionsInstance: Ajv2020 | undefined;

/** The Ajv instance plugin options schemas without a precompiled validator are compiled with. */
export function optionsAjv(): Ajv2020 {
  optionsInstance ??= createOptionsAjv();
  return optionsInstance;
}

/** The validator of one kind: precompiled when the build generated it for these schemas, else compiled now. */
export function kindValidator(kind: Kind | 'agentctl'): ValidateFunction {
  const validate = precompiledValidators(SCHEMA_DIR)?.[kind] ?? schemaAjv().getSchema(`${kind}.schema.json`);
  if (!validate) throw new Error(`schema ${kind}.schema.json is missing from ${SCHEMA_DIR}`);
  return validate;
}

/** The validator of script `turns` (offline script models): precompiled when built, else compiled now. */
export function turnsValidator(): ValidateFunction | undefined {
  return precompiledValidators(SCHEMA_DIR)?.turns ?? schemaAjv().getSchema('model.schema.json#/$defs/turns');
}
