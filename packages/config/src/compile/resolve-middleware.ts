import {
  type Middleware,
  type ModelDefinition,
  type ModelProvider,
  ownsRetries,
  retry,
} from '@agentctl/core';
import type { AgentDefinition, MiddlewareDefinition } from '../definitions.js';
import type { SpecEntry } from '../load/project-specs.js';
import { blamedMiddleware } from './blamed-middleware.js';
import { retryOptions } from './builtin-middleware.js';
import type { Compiler } from './compiler.js';
import { logRedaction } from './log-redaction.js';
import { watchedMiddleware } from './run-code-watchdog.js';
import { failureText, runGuarded } from './stray-failures.js';
import { strayGuardedMiddleware } from './stray-guarded-middleware.js';

async function fromModule(
  entry: SpecEntry,
  spec: MiddlewareDefinition,
  options: Record<string, unknown>,
  compiler: Compiler,
): Promise<Middleware> {
  const ctx = compiler.factoryContext(entry);
  const file = ctx.resolvePath(spec.module as string);
  const mod = await ctx.importModule(file);
  // What its code says after the action it ran for is done goes to stderr, the project's secrets hidden.
  const late = (text: string) => process.stderr.write(compiler.secrets.scrub(text));
  const project = (made: Middleware) =>
    watchedMiddleware(
      entry.name,
      blamedMiddleware(entry.name, file, compiler.root, strayGuardedMiddleware(entry.name, made, late)),
    );
  const value = mod[spec.export];
  if (typeof value !== 'function')
    throw new Error(`module ${spec.module} has no function exported as \`${spec.export}\``);
  // A middleware takes (action, next); anything taking fewer parameters is a factory of one.
  if (value.length >= 2) return project(value as Middleware);
  const made = await runGuarded(
    {
      owner: `the factory of middleware \`${entry.name}\``,
      late: (error) =>
        late(
          `agentctl: warning: code of the factory of middleware \`${entry.name}\` failed after it returned (ignored): ${failureText(error)}\n`,
        ),
    },
    () => (value as (o: Record<string, unknown>) => unknown)(options),
  );
  if (typeof made !== 'function')
    throw new Error(`the factory in ${spec.module} did not return a middleware function`);
  return project(made as Middleware);
}

/**
 * The middleware of an agent, outermost first, then the model's retry and timeout; and the
 * provider the agent calls. Retries are owned in one place per model: a `retry` middleware on a
 * provider that retries its own requests (see `ownsRetries`) sets that provider's policy instead
 * of multiplying its attempts, and is kept only for the tool calls it names.
 */
export async function resolveMiddleware(
  agent: SpecEntry,
  spec: AgentDefinition,
  model: ModelDefinition,
  provider: ModelProvider,
  compiler: Compiler,
): Promise<{ middleware: Middleware[]; provider: ModelProvider } | undefined> {
  const out: Middleware[] = [];
  let ok = true;
  let calls = provider;
  const redact = logRedaction(spec, compiler);
  const builtin = async (
    name: string,
    options: Record<string, unknown>,
    entry: SpecEntry,
    path: Array<string | number>,
  ) => {
    if (name === 'retry' && ownsRetries(calls)) {
      const owner = calls;
      return compiler.attempt(entry, path, 'middleware', () => {
        const given = retryOptions(options);
        calls = owner.withRetry({
          maxAttempts: given.maxAttempts,
          initialDelayMs: given.initialDelay,
          maxDelayMs: given.maxDelay,
        });
        const tools = given.on?.filter((on) => on === 'tool_call') ?? [];
        return tools.length > 0 ? retry({ ...given, on: tools }) : PASS;
      });
    }
    const factory = compiler.registry.middleware.get(name);
    if (!factory) {
      compiler.error(
        entry,
        path,
        'unknown-middleware',
        `middleware \`${name}\` is not available (registered: ${[...compiler.registry.middleware.keys()].join(', ')})`,
      );
      return undefined;
    }
    return compiler.attempt(entry, path, 'middleware', () =>
      factory(options, { ...compiler.factoryContext(entry), redact }),
    );
  };
  for (const [i, { name, options: given }] of spec.middleware.entries()) {
    const doc = compiler.specs.middleware.get(name);
    let made: Middleware | undefined;
    if (doc) {
      const docSpec = compiler.definition('middleware', doc);
      if (docSpec) {
        const options = { ...docSpec.options, ...given };
        made = docSpec.builtin
          ? await builtin(docSpec.builtin, options, doc, ['builtin'])
          : await compiler.attempt(doc, ['module'], 'middleware', () =>
              fromModule(doc, docSpec, options, compiler),
            );
      }
    } else made = await builtin(name, given, agent, ['middleware', i]);
    if (made) {
      if (made !== PASS) out.push(made);
    } else ok = false;
  }
  const modelEntry = compiler.specs.model.get(model.name);
  // Providers that retry themselves (network ones) also time out themselves, before the first
  // token, from the model's own settings; a middleware would repeat a call after text was streamed.
  const owned = ownsRetries(provider);
  if (model.retry && modelEntry && !owned) {
    const { maxAttempts, initialDelayMs, maxDelayMs } = model.retry;
    const options = { maxAttempts, initialDelay: initialDelayMs, maxDelay: maxDelayMs };
    const made = await builtin('retry', options, modelEntry, ['retry']);
    if (made) out.push(made);
    else ok = false;
  }
  if (model.timeoutMs !== undefined && modelEntry && !owned) {
    const made = await builtin('timeout', { model: model.timeoutMs }, modelEntry, ['timeout']);
    if (made) out.push(made);
    else ok = false;
  }
  return ok ? { middleware: out, provider: calls } : undefined;
}

// Stands for a middleware entry that became provider configuration: nothing to add to the chain.
const PASS: Middleware = (_action, next) => next();
