import type { ModelPricing, ModelProvider } from '@agentctl/core';
import type { SpecEntry } from '../load/project-specs.js';
import type { AgentSpec, ModelSpec, ProjectSpec } from '../spec-types.js';
import type { Compiler } from './compiler.js';

/** The model an agent ends up with. */
export interface ResolvedModel {
  provider: ModelProvider;
  spec: ModelSpec;
  pricing?: ModelPricing;
}

/** The model reference an agent uses: the override given to compile, its own, the project default, or offline/echo. */
export function modelRefOf(agent: AgentSpec, compiler: Compiler): string {
  const defaults = (compiler.specs.project?.spec as ProjectSpec | undefined)?.defaults;
  return compiler.modelOverride ?? agent.model ?? defaults?.model ?? 'offline/echo';
}

/** Makes (once per model) the provider of an agent's model, reporting why when it cannot. */
export async function resolveModel(
  agent: SpecEntry<AgentSpec>,
  compiler: Compiler,
): Promise<ResolvedModel | undefined> {
  const ref = modelRefOf(agent.spec, compiler);
  const named = compiler.specs.model.get(ref);
  const modelPath = agent.spec.model !== undefined ? ['model'] : [];
  let spec: ModelSpec | undefined;
  let where: SpecEntry = agent;
  let path: Array<string | number> = modelPath;
  if (named) {
    spec = compiler.resolved(named);
    where = named;
    path = ['provider'];
    if (!spec) return undefined;
  } else {
    const slash = ref.indexOf('/');
    if (slash <= 0) {
      compiler.error(agent, modelPath, 'unresolved-reference', `model \`${ref}\` is not defined`);
      return undefined;
    }
    spec = { kind: 'model', name: ref, provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
  }
  const factory = compiler.registry.providers.get(spec.provider);
  if (!factory) {
    const known = [...compiler.registry.providers.keys()].join(', ');
    compiler.error(
      where,
      path,
      'unknown-provider',
      `provider \`${spec.provider}\` of model \`${spec.name}\` is not available (registered: ${known})`,
    );
    return undefined;
  }
  let pending = compiler.providers.get(spec.name);
  if (!pending) {
    const model = spec;
    pending = compiler.attempt(where, path, 'provider', () => factory(model, compiler.factoryContext(where)));
    compiler.providers.set(spec.name, pending);
    const made = await pending;
    if (made?.dispose) compiler.disposers.push(() => made.dispose?.() ?? Promise.resolve());
  }
  const provider = await pending;
  if (!provider) return undefined;
  const p = spec.pricing;
  const pricing = p
    ? { input: p.input, output: p.output, cacheRead: p.cache_read, cacheWrite: p.cache_write }
    : undefined;
  return { provider, spec, pricing };
}
