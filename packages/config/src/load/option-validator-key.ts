import { createHash } from 'node:crypto';
import type { JsonSchema } from '../registry.js';

const keys = new WeakMap<object, string>();

/**
 * The name a plugin options schema's validator has among the precompiled validators: a digest of
 * the schema's JSON, so a schema that changed since the build never meets an old validator.
 */
export function optionValidatorKey(schema: JsonSchema): string {
  let key = keys.get(schema);
  if (key === undefined) {
    key = `options_${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 40)}`;
    keys.set(schema, key);
  }
  return key;
}
