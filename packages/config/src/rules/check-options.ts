import type { ValidateFunction } from 'ajv';
import { didYouMean } from '../load/did-you-mean.js';
import type { JsonSchema, PluginProblem, PluginRule } from '../registry.js';
import { schemaAjv } from '../schemas.js';
import { excerpt } from './excerpt.js';

const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = schemaAjv().compile(schema);
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
  const problems = uncachedCheck(options, schema, rules);
  if (seen.size < 1000) seen.set(key, problems);
  return problems;
}

const results = new WeakMap<object, Map<string, PluginProblem[]>>();

function uncachedCheck(
  options: Record<string, unknown>,
  schema: JsonSchema,
  rules: readonly PluginRule[],
): PluginProblem[] {
  const out: PluginProblem[] = [];
  const known = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const closed = schema.additionalProperties === false;
  for (const key of Object.keys(options)) {
    if (closed && !known.includes(key)) {
      const list = known.length > 0 ? ` (known: ${known.join(', ')})` : ' (it takes none)';
      out.push({
        path: [key],
        message: `unknown option \`${excerpt(key)}\`${didYouMean(key, known)}${list}`,
      });
    }
  }
  const validate = validatorOf(schema);
  if (!validate(options)) {
    for (const error of validate.errors ?? []) {
      if (error.keyword === 'additionalProperties' && error.instancePath === '') continue;
      const path = error.instancePath
        .split('/')
        .slice(1)
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
      const values = allowed ? `: ${allowed.map((v) => JSON.stringify(v)).join(', ')}` : '';
      out.push({
        path,
        message: `option ${path.join('.') || '(options)'} ${error.message ?? 'is invalid'}${values}`,
      });
    }
  }
  if (out.length === 0) for (const rule of rules) out.push(...rule(options));
  return out;
}
