import { renameSync, writeFileSync } from 'node:fs';
import type { Options } from 'ajv';
import { configAssets } from '../assets.js';
import { createSchemaAjv, KINDS, SCHEMA_AJV_OPTIONS, SCHEMA_DIR } from '../schemas.js';
import { META_AJV_OPTIONS, META_SCHEMA_ID } from './json-schema-problem.js';
import {
  codeCacheData,
  codeCacheFile,
  GENERATED_VALIDATORS,
  generatedHeader,
  runValidatorScript,
  schemasDigest,
  validatorScript,
} from './precompiled-validators.js';

function standalone(options: Options, refs: Record<string, string>): string {
  const standaloneCode = configAssets().require('ajv/dist/standalone/index.js').default as (
    ajv: unknown,
    refs: Record<string, string>,
  ) => string;
  const code = standaloneCode(createSchemaAjv({ ...options, code: { source: true } }), refs);
  // Each part declares its own top-level names (validate20, schema31, ...): a block keeps them apart.
  return `{\n${code.replace(/^"use strict";/, '')}\n}\n`;
}

/**
 * Generates the validators of every kind, of script `turns` and of the meta-schema as standalone
 * CommonJS code: loading it costs a few milliseconds where compiling the schemas costs ~150.
 */
export function generateValidatorCode(): string {
  const kinds: Record<string, string> = { agentctl: 'agentctl.schema.json' };
  for (const kind of KINDS) kinds[kind] = `${kind}.schema.json`;
  kinds.turns = 'model.schema.json#/$defs/turns';
  return [
    generatedHeader(schemasDigest(SCHEMA_DIR)),
    '"use strict";\n',
    standalone(SCHEMA_AJV_OPTIONS, kinds),
    standalone(META_AJV_OPTIONS, { meta: META_SCHEMA_ID }),
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
