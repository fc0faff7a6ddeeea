import { type AnyTool, BUILTIN_TOOLS, InMemorySessionStore, type JsonSchema } from '@agentctl/core';
import {
  loggingFromOptions,
  redactionFromOptions,
  retryFromOptions,
  timeoutFromOptions,
} from './compile/builtin-middleware.js';
import { BUILTIN_MIDDLEWARE_SCHEMAS, NO_OPTIONS_SCHEMA } from './compile/builtin-middleware-schemas.js';
import { offlineProvider } from './compile/offline-provider.js';
import { Secrets } from './env/secrets.js';
import { type PluginRule, Registry } from './registry.js';
import { allowedHostsRule } from './rules/allowed-hosts-rule.js';
import { timeZoneRule } from './rules/time-zone-rule.js';
import { BUILTIN_TOOL_SCHEMAS } from './toolbox/builtin-tool-schemas.js';
import { TOOLBOX } from './toolbox/toolbox.js';
import { commandTool } from './tools/command-tool.js';
import { httpTool, httpUrlRule } from './tools/http-tool.js';
import { moduleTool } from './tools/module-tool.js';

const mw = BUILTIN_MIDDLEWARE_SCHEMAS;

/**
 * A registry with the built-ins: provider `offline`; middleware retry, timeout, logging,
 * redaction; memory `memory`; tool kinds module, http, command; the built-in tools of core
 * (current_time, read_file, list_dir, http_get, user_input) and of the toolbox (shell,
 * filesystem, fetch, think, todo, memory), each with its options schema.
 *
 * @example
 * const registry = createRegistry().registerProvider('openai', (model) => openai(model));
 */
export function createRegistry(): Registry {
  const registry = new Registry()
    .registerProvider('offline', offlineProvider, {
      description: 'Offline models: echo, script, auto, replay. Needs no key and no network.',
      schema: NO_OPTIONS_SCHEMA,
      capabilities: { ownsRetries: false, needsNetwork: false },
    })
    .registerMiddleware('retry', retryFromOptions, { description: 'Retries failed calls.', schema: mw.retry })
    .registerMiddleware('timeout', timeoutFromOptions, { description: 'Time limits.', schema: mw.timeout })
    .registerMiddleware('logging', loggingFromOptions, { description: 'Logs actions.', schema: mw.logging })
    .registerMiddleware('redaction', redactionFromOptions, {
      description: 'Redacts secrets from text.',
      schema: mw.redaction,
    })
    .registerMemory('memory', () => new InMemorySessionStore(), {
      description: 'In process, lost on exit.',
      schema: NO_OPTIONS_SCHEMA,
    })
    .registerToolKind('module', moduleTool, {
      description: 'A tool exported by a .ts/.js module.',
      capabilities: { runsProjectCode: true },
    })
    .registerToolKind('http', httpTool, {
      description: 'An HTTP request.',
      capabilities: { needsNetwork: true, asksApproval: true },
      rules: [httpUrlRule, allowedHostsRule],
    })
    .registerToolKind('command', commandTool, {
      description: 'A command run without a shell.',
      capabilities: { asksApproval: true },
    });
  for (const [name, factory] of Object.entries(BUILTIN_TOOLS)) {
    const make = factory as (options: Record<string, unknown>) => ReturnType<typeof factory>;
    registry.registerBuiltinTool(name, (options, ctx) => make({ root: ctx.root, ...options }), {
      description: BUILTIN_TOOL_SCHEMAS[name].description as string,
      schema: BUILTIN_TOOL_SCHEMAS[name],
      rules: optionRules(BUILTIN_TOOL_SCHEMAS[name]),
      toolNames: namesOf((options) => make({ ...options, root: '/' })),
    });
  }
  for (const [name, factory] of Object.entries(TOOLBOX)) {
    registry.registerBuiltinTool(name, factory, {
      description: BUILTIN_TOOL_SCHEMAS[name].description as string,
      schema: BUILTIN_TOOL_SCHEMAS[name],
      rules: optionRules(BUILTIN_TOOL_SCHEMAS[name]),
      // The options as written, since some take tools away (`read_only` leaves no write_file).
      toolNames: namesOf((options) =>
        factory(
          { ...options, root: '/', roots: [] },
          { root: '/', file: '/agentctl.yaml', env: {}, secrets: new Secrets() },
        ),
      ),
    });
  }
  return registry;
}

// The names of the tools a built-in makes with some options, read from tools made once per set of
// options, when first asked: building them touches nothing, and no list of names is written beside
// the factories.
function namesOf(
  make: (options: Record<string, unknown>) => AnyTool | AnyTool[],
): (options: Record<string, unknown>) => readonly string[] {
  const names = new Map<string, readonly string[]>();
  return (options) => {
    const key = JSON.stringify(options);
    let known = names.get(key);
    if (known === undefined) {
      const made = make(options);
      known = (Array.isArray(made) ? made : [made]).map((tool) => tool.name);
      names.set(key, known);
    }
    return known;
  };
}

// The built-in tools that fetch (`http_get`, `fetch`) have their `allowed_hosts` checked, and
// those that take a `timezone` (`current_time`) have it checked against the runtime's zones.
function optionRules(schema: JsonSchema): PluginRule[] | undefined {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const rules: PluginRule[] = [];
  if ('allowed_hosts' in properties) rules.push(allowedHostsRule);
  if ('timezone' in properties) rules.push(timeZoneRule);
  return rules.length > 0 ? rules : undefined;
}
