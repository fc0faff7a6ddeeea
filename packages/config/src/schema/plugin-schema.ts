import { DEFAULT_MEMORY_BACKEND } from '../normalise/normalise-memory.js';
import type { JsonSchema, PluginKind, Registry } from '../registry.js';

/** The `$id` of the assembled plugin schema, which the kind schemas refer to. */
export const PLUGIN_SCHEMA_ID = 'plugins.schema.json';

/**
 * The `$defs` of the plugin schema, each applied by a kind schema with a `$ref`:
 * `providerOptions` (a model document), `middlewareOptions` (a middleware document),
 * `middlewareRef` (an agent's `{name: options}` entry), `memoryOptions` (a memory document),
 * `builtinToolOptions` (an agent's `- builtin:` entry).
 */
export const PLUGIN_DEFS = [
  'providerOptions',
  'middlewareOptions',
  'middlewareRef',
  'memoryOptions',
  'builtinToolOptions',
] as const;

type Described = { name: string; description?: string; schema: JsonSchema };

function described(registry: Registry, kind: PluginKind): Described[] {
  return registry.names(kind).flatMap((name) => {
    const descriptor = registry.describe(kind, name);
    return descriptor?.schema
      ? [{ name, description: descriptor.description, schema: descriptor.schema }]
      : [];
  });
}

// A plugin's own schema, its description added where the schema has none (for editors' hovers).
function withDescription(plugin: Described): JsonSchema {
  if (plugin.schema.description !== undefined || plugin.description === undefined) return plugin.schema;
  return { description: plugin.description, ...plugin.schema };
}

function when(field: string, value: string, then: JsonSchema, orUnset = false): JsonSchema {
  const is = { properties: { [field]: { const: value } }, required: [field] };
  return { if: orUnset ? { anyOf: [is, { not: { required: [field] } }] } : is, then };
}

function builtinEntry(plugin: Described, inlineKeys: readonly string[]): JsonSchema {
  const own = (plugin.schema.properties ?? {}) as Record<string, unknown>;
  const properties: Record<string, unknown> = { options: withDescription(plugin) };
  // An inline key beside `builtin:` is one of its options, or not allowed on this built-in.
  for (const key of inlineKeys) properties[key] = own[key] ?? false;
  return when('builtin', plugin.name, { properties });
}

/**
 * The plugin schema: the options schema every registered provider, middleware, memory backend and
 * built-in tool declares, placed where YAML writes them. Together with the hand-written kind
 * schemas it is the project schema editors complete from and `agentctl schema` prints; the
 * committed `schemas/plugins.schema.json` is this, made from the command line's registry.
 * `inlineKeys` are the options the agent schema lets a `- builtin:` entry write beside the name.
 */
export function pluginSchema(registry: Registry, inlineKeys: readonly string[]): JsonSchema {
  const providers = described(registry, 'provider');
  const middleware = described(registry, 'middleware');
  const memory = described(registry, 'memory');
  const builtins = described(registry, 'builtinTool');
  const defs: Record<(typeof PLUGIN_DEFS)[number], JsonSchema> = {
    providerOptions: {
      description: "A model's `options:`, typed by its provider.",
      allOf: providers.map((p) => when('provider', p.name, { properties: { options: withDescription(p) } })),
    },
    middlewareOptions: {
      description: "A middleware document's `options:`, typed by the built-in it configures.",
      allOf: middleware.map((m) => when('builtin', m.name, { properties: { options: withDescription(m) } })),
    },
    middlewareRef: {
      description: "An agent's `{name: options}` middleware entry, typed by the middleware.",
      properties: Object.fromEntries(middleware.map((m) => [m.name, withDescription(m)])),
    },
    memoryOptions: {
      description: "A memory's `options:`, typed by its backend.",
      allOf: memory.map((m) =>
        when(
          'backend',
          m.name,
          { properties: { options: withDescription(m) } },
          m.name === DEFAULT_MEMORY_BACKEND,
        ),
      ),
    },
    builtinToolOptions: {
      description: "A `- builtin:` tool entry's options (inline or under `options:`), typed by the built-in.",
      allOf: builtins.map((b) => builtinEntry(b, inlineKeys)),
    },
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: PLUGIN_SCHEMA_ID,
    title: 'agentctl plugin options',
    description:
      'Generated from the registry (`pnpm schema:write`); do not edit. The options each provider, middleware, memory backend and built-in tool registers.',
    $defs: defs,
  };
}

/**
 * The plugin schema the loader compiles: every definition accepts anything, since the
 * `plugin-options` rule checks options against the registry actually in use (third-party
 * plugins included) with "did you mean" messages.
 */
export function loaderPluginSchema(): JsonSchema {
  return {
    $id: PLUGIN_SCHEMA_ID,
    $defs: Object.fromEntries(PLUGIN_DEFS.map((name) => [name, true])),
  };
}
