import { parseDuration } from '@agentctl/core';
import type { JsonSchema } from '../registry.js';
import { camelCase } from './camel-case.js';
import { positiveDuration } from './positive-duration.js';

// Options whose schema is the shared duration type arrive in ms, whichever plugin owns them.
function durationKind(property: unknown): 'duration' | 'positive' | undefined {
  const ref = (property as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string') return undefined;
  if (ref.endsWith('#/$defs/positiveDuration')) return 'positive';
  return ref.endsWith('#/$defs/duration') ? 'duration' : undefined;
}

/**
 * A plugin's options as its factory takes them: keys camelCased, and durations (a property whose
 * schema is `common.schema.json#/$defs/duration` or `positiveDuration`) in milliseconds. The plugin's registered
 * schema says which is which, so no plugin parses YAML spellings itself.
 */
export function normaliseOptions(
  options: Record<string, unknown> | undefined,
  schema: JsonSchema | undefined,
): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (value === undefined) continue;
    const kind = durationKind(properties[key]);
    out[camelCase(key)] =
      kind === 'positive'
        ? positiveDuration(value as number | string, key)
        : kind === 'duration'
          ? parseDuration(value as number | string, key)
          : value;
  }
  return out;
}
