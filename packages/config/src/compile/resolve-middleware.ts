import type { Middleware } from '@agentctl/core';
import type { SpecEntry } from '../load/project-specs.js';
import type { AgentSpec, MiddlewareSpec, ModelSpec } from '../spec-types.js';
import type { Compiler } from './compiler.js';

async function fromModule(
  entry: SpecEntry<MiddlewareSpec>,
  spec: MiddlewareSpec,
  options: Record<string, unknown>,
  compiler: Compiler,
): Promise<Middleware> {
  const ctx = compiler.factoryContext(entry);
  const mod = await ctx.importModule(ctx.resolvePath(spec.module as string));
  const value = mod[spec.export ?? 'default'];
  if (typeof value !== 'function')
    throw new Error(`module ${spec.module} has no function exported as \`${spec.export ?? 'default'}\``);
  // A middleware takes (action, next); anything taking fewer parameters is a factory of one.
  if (value.length >= 2) return value as Middleware;
  const made = await (value as (o: Record<string, unknown>) => unknown)(options);
  if (typeof made !== 'function')
    throw new Error(`the factory in ${spec.module} did not return a middleware function`);
  return made as Middleware;
}

/** The middleware of an agent, outermost first, then the model's retry and timeout. */
export async function resolveMiddleware(
  agent: SpecEntry<AgentSpec>,
  spec: AgentSpec,
  model: ModelSpec,
  compiler: Compiler,
): Promise<Middleware[] | undefined> {
  const out: Middleware[] = [];
  let ok = true;
  const builtin = async (
    name: string,
    options: Record<string, unknown>,
    entry: SpecEntry,
    path: Array<string | number>,
  ) => {
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
      factory(options, compiler.factoryContext(entry)),
    );
  };
  for (const [i, ref] of (spec.middleware ?? []).entries()) {
    const name = typeof ref === 'string' ? ref : Object.keys(ref)[0];
    const given = typeof ref === 'string' ? {} : (ref[name] ?? {});
    const doc = compiler.specs.middleware.get(name) as SpecEntry<MiddlewareSpec> | undefined;
    let made: Middleware | undefined;
    if (doc) {
      const docSpec = compiler.resolved(doc);
      if (docSpec) {
        const options = { ...(docSpec.options ?? {}), ...given };
        made = docSpec.builtin
          ? await builtin(docSpec.builtin, options, doc, ['builtin'])
          : await compiler.attempt(doc, ['module'], 'middleware', () =>
              fromModule(doc, docSpec, options, compiler),
            );
      }
    } else made = await builtin(name, given, agent, ['middleware', i]);
    if (made) out.push(made);
    else ok = false;
  }
  const modelEntry = compiler.specs.model.get(model.name);
  // Providers that talk to a network (openai, anthropic, ...) retry and time out themselves, before
  // the first token; the middleware would repeat a call after text was already streamed.
  const ownsRetries =
    compiler.registry.describe('provider', model.provider)?.capabilities?.ownsRetries === true;
  if (model.retry && modelEntry && !ownsRetries) {
    const made = await builtin('retry', model.retry, modelEntry, ['retry']);
    if (made) out.push(made);
    else ok = false;
  }
  if (model.timeout !== undefined && modelEntry && !ownsRetries) {
    const made = await builtin('timeout', { model: model.timeout }, modelEntry, ['timeout']);
    if (made) out.push(made);
    else ok = false;
  }
  return ok ? out : undefined;
}
