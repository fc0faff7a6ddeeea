import type { ValidateFunction } from 'ajv';
import { configAssets } from '../assets.js';
import type { CheckMemo } from '../load/check-memo.js';
import { didYouMean } from '../load/did-you-mean.js';
import { optionValidatorKey } from '../load/option-validator-key.js';
import { precompiledValidators } from '../load/precompiled-validators.js';
import { type SchemaSubject, schemaProblems } from '../load/schema-problems.js';
import type { JsonSchema, PluginProblem, PluginRule } from '../registry.js';
import { optionsAjv, SCHEMA_DIR } from '../schemas.js';
import { excerpt } from './excerpt.js';

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * What options schemas found in options before, kept between runs (the project's cache): a check
 * is a function of the schema and the options alone, and making its validator costs a start-up
 * tens of milliseconds, so an unchanged project's options are not checked by a validator again.
 */
export type OptionCheckMemo = CheckMemo<PluginProblem[]>;

// Bump when what a schema check reports from the same schema and options changes.
const MEMO_FORMAT = 'agentctl-options-3';
let memoPrefix: string | undefined;

// A schema's part of a memo key: the digest its validator is named by, with the validator's version.
function schemaKey(schema: JsonSchema): string {
  memoPrefix ??= `${MEMO_FORMAT}:${(configAssets().require('ajv/package.json') as { version: string }).version}:`;
  return memoPrefix + optionValidatorKey(schema);
}

function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // A built-in plugin's validator was generated at build time: no ajv to load and no compile.
    validate =
      precompiledValidators(SCHEMA_DIR)?.[optionValidatorKey(schema)] ?? optionsAjv().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Problems of options written for a plugin, against the schema and rules it registered: an unknown
 * key is named with the nearest known one; anything else is the schema's complaint at its path.
 */
export function checkOptions(
  options: Record<string, unknown>,
  schema: JsonSchema | undefined,
  rules: readonly PluginRule[] = [],
  memo?: OptionCheckMemo,
): PluginProblem[] {
  if (!schema) return rules.flatMap((rule) => rule(options));
  // A thousand agents tend to write the same few option sets: each is checked once per schema.
  const key = JSON.stringify(options);
  let seen = results.get(schema);
  if (!seen) {
    seen = new Map();
    results.set(schema, seen);
  }
  const known = seen.get(key);
  if (known) return known;
  const problems = uncachedCheck(options, key, schema, rules, memo);
  if (seen.size < 1000) seen.set(key, problems);
  return problems;
}

const results = new WeakMap<object, Map<string, PluginProblem[]>>();

function uncachedCheck(
  options: Record<string, unknown>,
  optionsJson: string,
  schema: JsonSchema,
  rules: readonly PluginRule[],
  memo: OptionCheckMemo | undefined,
): PluginProblem[] {
  const out: PluginProblem[] = [];
  const known = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const closed = schema.additionalProperties === false;
  for (const key of Object.keys(options)) {
    if (closed && !known.includes(key)) {
      const list = known.length > 0 ? ` (known: ${known.join(', ')})` : ' (it takes none)';
      out.push({
        path: [key],
        key: true,
        message: `unknown option \`${excerpt(key)}\`${didYouMean(key, known)}${list}`,
      });
    }
  }
  const memoKey = memo ? `${schemaKey(schema)}:${optionsJson}` : '';
  const remembered = memo?.get(memoKey);
  if (remembered) out.push(...remembered);
  else {
    const found = optionProblems(options, schema);
    memo?.set(memoKey, found);
    out.push(...found);
  }
  if (out.length === 0) for (const rule of rules) out.push(...rule(options));
  return out;
}

// What the schema says of the options (an unknown key of a closed schema is told apart, above),
// in the words the document kinds' errors use: one problem per mistake, a union's forms named once.
function optionProblems(options: Record<string, unknown>, schema: JsonSchema): PluginProblem[] {
  const validate = validatorOf(schema);
  if (validate(options)) return [];
  const errors = (validate.errors ?? []).filter(
    (error) => !(error.keyword === 'additionalProperties' && error.instancePath === ''),
  );
  return schemaProblems(errors, OPTIONS).map(({ path, key, message }) => ({ path, message, key }));
}

const OPTIONS: SchemaSubject = { whole: 'options', plural: true, field: (name) => `option \`${name}\`` };
