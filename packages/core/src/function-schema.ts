import type { JsonSchema } from './model.js';

const COMPOSITION = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * A tool's parameters as the OpenAI and Anthropic APIs accept them: an object schema with
 * `properties` and no `anyOf`, `oneOf` or `allOf` at its root, which both refuse with a 400 for
 * the whole request (MCP servers often send such schemas). The branches' properties are merged
 * into the root's (the root's own win; `allOf` keeps its branches' `required`), so the model
 * still sees every argument. Only the copy sent to the model changes: the tool's arguments are
 * still checked against its full schema, and a call that misses a branch gets that error back.
 *
 * @example
 * functionSchema({ type: 'object', anyOf: [{ properties: { id: { type: 'string' } }, required: ['id'] }] });
 * // { type: 'object', properties: { id: { type: 'string' } } }
 */
export function functionSchema(parameters: JsonSchema): JsonSchema {
  const hasComposition = COMPOSITION.some((key) => Array.isArray(parameters[key]));
  if (!hasComposition) return { type: 'object', properties: {}, ...parameters };
  const root: JsonSchema = Object.fromEntries(
    Object.entries(parameters).filter(([key]) => !(COMPOSITION as readonly string[]).includes(key)),
  );
  const properties: Record<string, unknown> = {};
  const required = new Set<string>(stringsOf(root.required));
  for (const key of COMPOSITION) {
    const branches = parameters[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!branch || typeof branch !== 'object') continue;
      const own = (branch as JsonSchema).properties;
      if (own && typeof own === 'object') Object.assign(properties, own);
      if (key === 'allOf') for (const name of stringsOf((branch as JsonSchema).required)) required.add(name);
    }
  }
  const rootProperties = root.properties && typeof root.properties === 'object' ? root.properties : {};
  const out: JsonSchema = { ...root, type: 'object', properties: { ...properties, ...rootProperties } };
  if (required.size > 0) out.required = [...required];
  else delete out.required;
  return out;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
