import {
  createFallbackProvider,
  type FallbackMember,
  type ModelDefinition,
  type ModelPricing,
  type ModelProvider,
} from '@agentctl/core';
import { diagnostic } from '../diagnostic.js';
import type { SpecEntry } from '../load/project-specs.js';
import { normaliseModel } from '../normalise/normalise-model.js';
import { displayPath, resolveProjectPath } from '../paths.js';
import type { ProviderFactory } from '../registry.js';
import type { AgentSpec, ModelSpec, ProjectSpec } from '../spec-types.js';
import type { Compiler } from './compiler.js';
import { modelInfo } from './model-catalogue.js';
import { replayFromSpec } from './offline-provider.js';

/**
 * Wraps each model provider a compile makes, once per model: `agentctl run --record` records
 * every call this way. `scrub` hides the project's secret values in text the wrapper keeps.
 */
export type ProviderWrapper = (
  provider: ModelProvider,
  model: ModelDefinition,
  secrets: { scrub(text: string): string },
) => ModelProvider;

// `api_key: ${VAR}` (with or without a default): the variable a missing key is blamed on.
const KEY_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[-?][^}]*)?\}$/;

/** The model an agent ends up with. */
export interface ResolvedModel {
  provider: ModelProvider;
  /** The raw spec, `${VAR}` resolved (for the retry and timeout middleware of offline models). */
  spec: ModelSpec;
  definition: ModelDefinition;
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
  const keyEnv = named ? keyEnvOf(named) : undefined;
  let definition: ModelDefinition;
  try {
    definition = normaliseModel(spec, keyEnv);
  } catch (error) {
    // Only a `${VAR}` the schema could not see gets here (a duration such as `timeout: ${T}`).
    compiler.error(where, path, 'schema', (error as Error).message);
    return undefined;
  }
  const chained = named !== undefined && definition.fallback !== undefined && !replaysInstead(spec);
  const provider = chained
    ? await fallbackChain(definition, compiler)
    : await makeProvider(spec, definition, named, where, path, compiler, true);
  if (!provider) return undefined;
  return { provider, spec, definition, pricing: pricingOf(definition) };
}

// Prices written in YAML win over the catalogue's list prices.
function pricingOf(definition: ModelDefinition): ModelPricing | undefined {
  return definition.pricing ?? modelInfo(definition.provider, definition.model ?? '')?.pricing;
}

function keyEnvOf(named: SpecEntry): string | undefined {
  return KEY_REFERENCE.exec((named.spec as ModelSpec).api_key ?? '')?.[1];
}

/**
 * Makes (once per model) the provider of a model. `wrapped` providers go through the compile's
 * wrapper (`--record`); the members of a fallback chain are made apart, unwrapped, because the
 * chain as a whole is what an agent asks and what a cassette records.
 */
async function makeProvider(
  spec: ModelSpec,
  definition: ModelDefinition,
  named: SpecEntry | undefined,
  where: SpecEntry,
  at: Array<string | number>,
  compiler: Compiler,
  wrapped: boolean,
): Promise<ModelProvider | undefined> {
  let path = at;
  const replaying = named !== undefined && replaysInstead(spec);
  if (replaying || (spec.provider === 'offline' && spec.model === 'replay' && spec.cassette))
    path = ['cassette'];
  // A model that replays needs no provider package: the cassette stands in for it.
  const factory: ProviderFactory | undefined = replaying
    ? (m, ctx) => replayFromSpec(m, ctx, true)
    : compiler.registry.providers.get(spec.provider);
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
  const key = wrapped ? spec.name : `fallback member ${spec.name}`;
  let pending = compiler.providers.get(key);
  if (!pending) {
    const model = definition;
    if (replaying) {
      const blame = named && keyEnvOf(named) ? `${keyEnvOf(named)} is not set` : 'its api_key is empty';
      const cassette = shown(compiler, where, model.cassette);
      compiler.diagnostics.push(
        diagnostic(
          where.file,
          where.locate(path),
          'replay-fallback',
          `model \`${model.name}\` has no API key (${blame}); replaying its cassette ${cassette} instead`,
          'warning',
        ),
      );
    }
    pending = compiler.attempt(where, path, 'provider', async () => {
      const made = await factory(model, compiler.factoryContext(where));
      return wrapped && compiler.wrapProvider ? compiler.wrapProvider(made, model, compiler.secrets) : made;
    });
    compiler.providers.set(key, pending);
    const made = await pending;
    if (made?.dispose) compiler.disposers.push(() => made.dispose?.() ?? Promise.resolve());
  }
  return pending;
}

/**
 * The fallback chain of a model: itself, then its `fallback` models in order, each followed
 * through its own `fallback` list (first mention wins; `validate` refuses cycles). Made once per
 * model, so every agent on it shares one cooldown.
 */
async function fallbackChain(
  definition: ModelDefinition,
  compiler: Compiler,
): Promise<ModelProvider | undefined> {
  const key = `fallback chain ${definition.name}`;
  let pending = compiler.providers.get(key);
  if (!pending) {
    pending = (async () => {
      const names: string[] = [];
      const visit = (name: string) => {
        if (names.includes(name)) return;
        names.push(name);
        const entry = compiler.specs.model.get(name);
        for (const next of (entry?.spec as ModelSpec | undefined)?.fallback ?? []) visit(next);
      };
      visit(definition.name);
      const members: FallbackMember[] = [];
      for (const name of names) {
        const entry = compiler.specs.model.get(name);
        const spec = entry && compiler.resolved(entry);
        if (!entry || !spec) return undefined;
        let memberDef = definition;
        try {
          if (name !== definition.name) memberDef = normaliseModel(spec, keyEnvOf(entry));
        } catch (error) {
          compiler.error(entry, ['provider'], 'schema', (error as Error).message);
          return undefined;
        }
        const provider = await makeProvider(spec, memberDef, entry, entry, ['provider'], compiler, false);
        if (!provider) return undefined;
        members.push({ name, model: memberDef.model, provider, pricing: pricingOf(memberDef) });
      }
      const chain = createFallbackProvider({ members, cooldownMs: definition.fallback?.cooldownMs });
      return compiler.wrapProvider ? compiler.wrapProvider(chain, definition, compiler.secrets) : chain;
    })();
    compiler.providers.set(key, pending);
  }
  return pending;
}

// A network model with a `cassette:` plays it when it has no key, so a project with real models
// still runs (and is tested) where no key is set.
function replaysInstead(spec: ModelSpec): boolean {
  return spec.provider !== 'offline' && spec.cassette !== undefined && !spec.api_key;
}

function shown(compiler: Compiler, where: SpecEntry, written: string | undefined): string {
  return written === undefined
    ? ''
    : displayPath(compiler.root, resolveProjectPath(compiler.root, where.absFile, written).absolute);
}
