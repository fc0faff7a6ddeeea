import { renameSync, writeFileSync } from 'node:fs';
import type { Options } from 'ajv';
import { configAssets } from '../assets.js';
import { BUILTIN_MIDDLEWARE_SCHEMAS, NO_OPTIONS_SCHEMA } from '../compile/builtin-middleware-schemas.js';
import type { JsonSchema } from '../registry.js';
import {
  createOptionsAjv,
  createSchemaAjv,
  KINDS,
  OPTIONS_AJV_OPTIONS,
  SCHEMA_AJV_OPTIONS,
  SCHEMA_DIR,
} from '../schemas.js';
import { BUILTIN_TOOL_SCHEMAS } from '../toolbox/builtin-tool-schemas.js';
import { META_AJV_OPTIONS, META_SCHEMA_ID } from './json-schema-problem.js';
import { optionValidatorKey } from './option-validator-key.js';
import {
  codeCacheData,
  codeCacheFile,
  GENERATED_VALIDATORS,
  generatedHeader,
  runValidatorScript,
  schemasDigest,
  validatorScript,
} from './precompiled-validators.js';

function standalone(ajv: unknown, refs: Record<string, string>): string {
  const standaloneCode = configAssets().require('ajv/dist/standalone/index.js').default as (
    ajv: unknown,
    refs: Record<string, string>,
  ) => string;
  const code = standaloneCode(ajv, refs);
  // Each part declares its own top-level names (validate20, schema31, ...): a block keeps them apart.
  return `{\n${code.replace(/^"use strict";/, '')}\n}\n`;
}

const withSource = (options: Options): Options => ({ ...options, code: { source: true } });

// The options schemas of the built-in plugins (providers, middleware, memory and tools of this
// package), each under its digest's name: checking options written for them then loads no ajv.
function builtinOptionValidators(): string {
  const ajv = createOptionsAjv(withSource(OPTIONS_AJV_OPTIONS));
  const refs: Record<string, string> = {};
  const schemas: JsonSchema[] = [
    NO_OPTIONS_SCHEMA,
    ...Object.values(BUILTIN_MIDDLEWARE_SCHEMAS),
    ...Object.values(BUILTIN_TOOL_SCHEMAS),
  ];
  for (const schema of schemas) {
    const key = optionValidatorKey(schema);
    if (refs[key]) continue;
    ajv.addSchema(schema, key);
    refs[key] = key;
  }
  return standalone(ajv, refs);
}

/**
 * Generates the validators of every kind, of script `turns`, of the meta-schema and of the
 * built-in plugins' options as standalone CommonJS code: loading it costs a few milliseconds where
 * compiling the schemas costs ~150.
 */
export function generateValidatorCode(): string {
  const kinds: Record<string, string> = { agentctl: 'agentctl.schema.json' };
  for (const kind of KINDS) kinds[kind] = `${kind}.schema.json`;
  kinds.turns = 'model.schema.json#/$defs/turns';
  return [
    generatedHeader(schemasDigest(SCHEMA_DIR)),
    '"use strict";\n',
    standalone(createSchemaAjv(withSource(SCHEMA_AJV_OPTIONS)), kinds),
    standalone(createSchemaAjv(withSource(META_AJV_OPTIONS)), { meta: META_SCHEMA_ID }),
    builtinOptionValidators(),
  ].join('');
}

/**
 * Writes the generated validators where the built package loads them from, with a V8 code cache
 * taken after a first use (so it holds the validators' compiled code too); returns the path.
 */
export function writeValidatorCode(file = GENERATED_VALIDATORS): string {
  const code = generateValidatorCode();
  const script = validatorScript(code, file);
  const validators = runValidatorScript(script);
  for (const validate of Object.values(validators)) {
    validate?.({});
    validate?.({ kind: 'agent', name: 'a', model: 'offline/echo', tools: ['t'] });
  }
  // Renamed into place: a CLI starting meanwhile (tests, another build) never reads half a file.
  writeAtomic(codeCacheFile(file), codeCacheData(code, script.createCachedData()));
  writeAtomic(file, code);
  return file;
}

function writeAtomic(file: string, data: string | Uint8Array): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, file);
}
