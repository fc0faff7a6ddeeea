import { createRegistry, type Registry } from '@agentctl/config';
import { BUILTIN_TOOLS } from '@agentctl/core';

/**
 * The registry the command line uses: the built-ins plus every provider, store and toolset kind
 * shipped with agentctl. Vendor SDKs load on first use, so a run on the offline model never pays
 * for them.
 */
export function defaultRegistry(): Registry {
  const registry = createRegistry()
    .registerProvider('openai', async (spec) =>
      (await import('@agentctl/provider-openai')).openaiFromSpec(spec as never),
    )
    .registerProvider('anthropic', async (spec) =>
      (await import('@agentctl/provider-anthropic')).anthropicFromSpec(spec as never),
    )
    .registerMemory('file', async (spec, ctx) =>
      (await import('@agentctl/store-file')).fileMemoryBackend(spec as never, ctx),
    )
    .registerToolset('mcp', async (spec, ctx) =>
      (await import('@agentctl/mcp')).mcpToolsetFactory(spec as never, ctx),
    )
    .registerRemoteAgent('a2a', async (spec) => (await import('@agentctl/server')).a2aRemoteAgent(spec));
  for (const [name, factory] of Object.entries(BUILTIN_TOOLS)) {
    registry.registerBuiltinTool(name, (options, ctx) =>
      (factory as (o: unknown) => never)({ root: ctx.root, ...options }),
    );
  }
  return registry;
}
