import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import type { ValidateFunction } from 'ajv';
import { configAssets } from '../assets.js';

/** Where the build writes the generated validators (beside the built `schemas.js`; absent in `src/`). */
export const GENERATED_VALIDATORS: string = configAssets().validatorsFile;

/** The validators a generated file holds: one per kind, `agentctl`, `turns` and `meta` (draft 2020-12). */
export type Validators = Partial<Record<string, ValidateFunction>>;

const HEADER = '// agentctl schema validators, generated from schemas with sha256 ';

/** A digest of every `*.schema.json` of the folder: names and contents. */
export function schemasDigest(schemaDir: string): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(schemaDir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(`${schemaDir}/${file}`))
      .update('\0');
  }
  return hash.digest('hex');
}

/** The first line of a generated file, naming the schemas it was generated from. */
export function generatedHeader(digest: string): string {
  return `${HEADER}${digest}\n`;
}

/** The V8 code cache kept beside a generated file. */
export function codeCacheFile(file: string): string {
  return `${file}.v8cache`;
}

// V8 checks a code cache against the source's length only, so the cache file starts with the
// digest of the code it was made from: a cache from other code of the same length is never used.
const codeDigest = (code: string) => createHash('sha256').update(code).digest('hex');

/** A code cache file's content: the code's digest, then V8's data. */
export function codeCacheData(code: string, cachedData: Buffer): Buffer {
  return Buffer.concat([Buffer.from(codeDigest(code)), cachedData]);
}

/** V8's data from a code cache file, when it was made from this code. */
export function cachedDataFor(code: string, content: Buffer | undefined): Buffer | undefined {
  const digest = codeDigest(code);
  if (!content || content.subarray(0, digest.length).toString('latin1') !== digest) return undefined;
  return content.subarray(digest.length);
}

/** Compiles generated CommonJS code as a script, with V8's code cache when one is given. */
export function validatorScript(code: string, file: string, cachedData?: Buffer): Script {
  return new Script(`(function (module, exports, require) {${code}\n})`, { filename: file, cachedData });
}

/** Runs a compiled script; its `require`s (ajv's small runtime helpers) resolve from this package. */
export function runValidatorScript(script: Script): Validators {
  const module = { exports: {} as Validators };
  script.runInThisContext()(module, module.exports, configAssets().require);
  return module.exports;
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

const loaded = new Map<string, Validators | null>();

/**
 * The precompiled validators, or undefined when there is no generated file or it was generated
 * from other schemas (edited since the build): the caller then compiles them, so a stale file is
 * never used.
 */
export function precompiledValidators(
  schemaDir: string,
  file = GENERATED_VALIDATORS,
): Validators | undefined {
  const key = `${schemaDir}\0${file}`;
  let validators = loaded.get(key);
  if (validators === undefined) {
    validators = null;
    // Not built (tests run from src) or stale: compile at run time instead.
    const code = readOptional(file)?.toString('utf8');
    if (code?.startsWith(generatedHeader(schemasDigest(schemaDir)))) {
      try {
        // V8 rejects a cache made by another V8 or with other flags and compiles the source instead.
        const cachedData = cachedDataFor(code, readOptional(codeCacheFile(file)));
        validators = runValidatorScript(validatorScript(code, file, cachedData));
      } catch {
        // A file that does not run (damaged, or an ajv it needs is gone) is no worse than none.
        validators = null;
      }
    }
    loaded.set(key, validators);
  }
  return validators ?? undefined;
}
