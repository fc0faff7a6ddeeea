import { parseDuration } from '@agentctl/core';
import type { FactoryContext } from '../registry.js';
import type { BuiltinOptionsSpec } from '../spec-types.js';

// The options the schema lets a `builtin:` entry write inline, per built-in of core. A built-in
// added through the registry takes its options under `options:` instead.
const INLINE_OPTIONS: Record<string, readonly string[]> = {
  current_time: ['timezone'],
  read_file: ['root', 'max_bytes'],
  list_dir: ['root', 'max_entries'],
  http_get: ['allowed_hosts', 'max_bytes', 'timeout'],
  shell: ['root', 'timeout'],
  filesystem: ['root', 'max_bytes'],
  fetch: ['allowed_hosts', 'max_bytes', 'timeout'],
  think: [],
  todo: [],
  memory: [],
};

/**
 * The options of a `- builtin: NAME` entry as its factory takes them: inline keys and `options:`
 * merged, camelCased, `root` resolved against the file (inside the project), durations in ms.
 * Throws when an inline key is not an option of that built-in.
 */
export function builtinOptions(
  ref: { builtin: string } & BuiltinOptionsSpec,
  ctx: FactoryContext,
): Record<string, unknown> {
  const { builtin, options, ...inline } = ref;
  const known = INLINE_OPTIONS[builtin];
  for (const key of Object.keys(inline)) {
    if (known && !known.includes(key)) {
      throw new TypeError(
        `\`${key}\` is not an option of built-in \`${builtin}\` (its options: ${known.join(', ') || 'none'})`,
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries({ ...options, ...inline })) {
    if (value === undefined) continue;
    const name = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    if (key === 'root' && typeof value === 'string') out[name] = ctx.resolvePath(value);
    else if (key === 'timeout') out[name] = parseDuration(value as string | number);
    else out[name] = value;
  }
  return out;
}
