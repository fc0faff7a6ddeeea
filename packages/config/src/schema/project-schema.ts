import type { Registry } from '../registry.js';
import { loadSchema } from '../schemas.js';
import { bundleSchema } from './bundle-schema.js';
import { pluginSchema } from './plugin-schema.js';

// Keys of a tool entry that are not a built-in's options.
const NOT_OPTIONS = new Set(['builtin', 'options', 'module', 'export', 'toolset', 'agent']);

/** The options the agent schema lets a `- builtin:` entry write beside the name (`root`, `timeout`, ...). */
export function builtinInlineKeys(): string[] {
  const agent = loadSchema('agent') as { $defs: { toolRef: { anyOf: Array<{ properties?: object }> } } };
  const entry = agent.$defs.toolRef.anyOf.find((option) => option.properties);
  return Object.keys(entry?.properties ?? {}).filter((key) => !NOT_OPTIONS.has(key));
}

/**
 * The project schema of one kind (or of any document, `agentctl`) as one self-contained document:
 * the hand-written kind schemas of `schemas/` with the plugin schema assembled from `registry`,
 * so a registered plugin's options are completed and checked by editors like the built-ins'.
 *
 * @example
 * const schema = projectSchema(createRegistry().registerProvider('acme', acme, { schema }));
 */
export function projectSchema(registry: Registry, kind = 'agentctl'): object {
  const plugins = pluginSchema(registry, builtinInlineKeys());
  const load = (name: string) => (name === 'plugins' ? plugins : loadSchema(name));
  return bundleSchema(load(kind), load);
}
