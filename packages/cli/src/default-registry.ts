import { createRegistry, type FactoryContext, NO_OPTIONS_SCHEMA, type Registry } from '@agentctl/config';
import { ANTHROPIC_OPTIONS_SCHEMA } from '@agentctl/provider-anthropic/options-schema';
import { GOOGLE_OPTIONS_SCHEMA } from '@agentctl/provider-google/options-schema';
import { OPENAI_OPTIONS_SCHEMA } from '@agentctl/provider-openai/options-schema';
import { strictOutputProblems } from '@agentctl/provider-openai/strict-output-schema';
import { POSTGRES_OPTIONS_SCHEMA } from '@agentctl/store-postgres/options-schema';

const network = { ownsRetries: true, needsNetwork: true };

// The project's environment (over its .env) for a provider reading `variable` when `api_key` is
// left out; the key it finds there is a secret like one written `${VAR}`.
function keyed(ctx: FactoryContext, variable: string): FactoryContext['env'] {
  const key = ctx.env[variable];
  if (key) ctx.secrets.add(key);
  return ctx.env;
}

/**
 * The registry the command line uses: the built-ins plus every provider, store and toolset kind
 * shipped with agentctl. Vendor SDKs load on first use, so a run on the offline model never pays
 * for them; their options schemas are small files of their own, read at once.
 */
export function defaultRegistry(): Registry {
  const registry = createRegistry()
    .registerProvider(
      'openai',
      async (def, ctx) =>
        (await import('@agentctl/provider-openai')).openaiFromSpec(def, keyed(ctx, 'OPENAI_API_KEY')),
      {
        description: 'OpenAI and OpenAI-compatible servers.',
        schema: OPENAI_OPTIONS_SCHEMA,
        capabilities: network,
        // The API refuses, at every call, a schema outside strict mode's subset.
        outputSchemaRules: [
          (schema, options) => (options.strictOutput === true ? strictOutputProblems(schema) : []),
        ],
      },
    )
    .registerProvider(
      'anthropic',
      async (def, ctx) =>
        (await import('@agentctl/provider-anthropic')).anthropicFromSpec(
          def,
          keyed(ctx, 'ANTHROPIC_API_KEY'),
        ),
      {
        description: 'The Anthropic Messages API.',
        schema: ANTHROPIC_OPTIONS_SCHEMA,
        // Its request types have no temperature or top_p.
        capabilities: { ...network, unsupportedSettings: ['temperature', 'top_p'] },
      },
    )
    .registerProvider(
      'google',
      async (def, ctx) =>
        (await import('@agentctl/provider-google')).googleFromSpec(def, keyed(ctx, 'GEMINI_API_KEY')),
      {
        description: 'The Gemini API (Google AI Studio).',
        schema: GOOGLE_OPTIONS_SCHEMA,
        capabilities: network,
      },
    )
    .registerMemory(
      'file',
      async (memory, ctx) => (await import('@agentctl/store-file')).fileMemoryBackend(memory, ctx),
      { description: 'Sessions on disk (the default).', schema: NO_OPTIONS_SCHEMA },
    )
    .registerMemory(
      'postgres',
      async (memory) => (await import('@agentctl/store-postgres')).postgresMemoryBackend(memory),
      {
        description: 'Sessions in PostgreSQL, shared by every process and machine (`url: ${DATABASE_URL}`).',
        schema: POSTGRES_OPTIONS_SCHEMA,
        capabilities: { needsNetwork: true },
      },
    )
    .registerToolset(
      'mcp',
      async (toolset, ctx) => (await import('@agentctl/mcp')).mcpToolsetFactory(toolset, ctx),
      { description: 'An MCP server over stdio or HTTP.', capabilities: { needsNetwork: true } },
    )
    .registerRemoteAgent(
      'a2a',
      async (spec, ctx) =>
        (await import('@agentctl/server')).a2aRemoteAgent(
          spec,
          (text) => ctx.secrets.scrub(text),
          ctx.secrets,
        ),
      async (spec, ctx) =>
        (await import('@agentctl/server')).reachA2ARemote(spec, (text) => ctx.secrets.scrub(text)),
    );
  return registry;
}
