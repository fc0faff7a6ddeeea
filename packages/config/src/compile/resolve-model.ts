import {
  createFallbackProvider,
  type FallbackMember,
  type ModelDefinition,
  type ModelPricing,
  type ModelProvider,
} from '@agentctl/core';
import type { AgentDefinition } from '../definitions.js';
import { diagnostic } from '../diagnostic.js';
import type { SpecEntry } from '../load/project-specs.js';
import { normaliseModel } from '../normalise/normalise-model.js';
import { displayPath, resolveProjectPath } from '../paths.js';
import type { ProviderFactory } from '../registry.js';
import type { ModelSpec } from '../spec-types.js';
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
  definition: ModelDefinition;
  pricing?: ModelPricing;
}

/** The model reference an agent uses: the overrides given to compile, its own, the project default, or offline/echo. */
export function modelRefOf(agent: AgentDefinition, compiler: Compiler): string {
  return (
    compiler.agentModels?.get(agent.name) ??
    compiler.modelOverride ??
    agent.model ??
    compiler.project.defaults.model ??
    'offline/echo'
  );
}

/** Makes (once per model) the provider of an agent's model, reporting why when it cannot. */
export async function resolveModel(
  agent: SpecEntry,
  spec: AgentDefinition,
  compiler: Compiler,
): Promise<ResolvedModel | undefined> {
  const ref = modelRefOf(spec, compiler);
  const named = compiler.specs.model.get(ref);
  const modelPath = spec.model !== undefined ? ['model'] : [];
  let found: ModelDefinition | undefined;
  let where: SpecEntry = agent;
  let path: Array<string | number> = modelPath;
  // A model the project's `defaults.model` gives is blamed where it is written.
  const project = compiler.specs.project;
  const fromDefaults =
    spec.model === undefined &&
    !compiler.agentModels?.has(spec.name) &&
    compiler.modelOverride === undefined &&
    compiler.project.defaults.model !== undefined;
  if (project && fromDefaults) {
    where = project;
    path = ['defaults', 'model'];
  }
  if (named) {
    found = definitionOf(named, compiler);
    where = named;
    path = ['provider'];
    if (!found) return undefined;
  } else {
    const slash = ref.indexOf('/');
    if (slash <= 0) {
      compiler.error(agent, modelPath, 'unresolved-reference', `model \`${ref}\` is not defined`);
      return undefined;
    }
    found = normaliseModel({
      kind: 'model',
      name: ref,
      provider: ref.slice(0, slash),
      model: ref.slice(slash + 1),
    });
  }
  const definition = found;
  const chained =
    named !== undefined && definition.fallback !== undefined && !replaysInstead(definition, compiler);
  const provider = chained
    ? await fallbackChain(definition, compiler)
    : await makeProvider(definition, named, where, path, compiler, true, true);
  if (!provider) return undefined;
  return { provider, definition, pricing: pricingOf(definition) };
}

// A named model's definition, with the variable of `api_key: ${VAR}` (read from the spec as
// written) that a missing key is blamed on.
function definitionOf(named: SpecEntry<ModelSpec>, compiler: Compiler): ModelDefinition | undefined {
  const found = compiler.definition('model', named);
  return found && { ...found, apiKeyEnv: KEY_REFERENCE.exec((named.spec as ModelSpec).api_key ?? '')?.[1] };
}

// Prices written in YAML win over the catalogue's list prices.
function pricingOf(definition: ModelDefinition): ModelPricing | undefined {
  return definition.pricing ?? modelInfo(definition.provider, definition.model ?? '')?.pricing;
}

/**
 * Makes (once per model) the provider of a model. `wrapped` providers go through the compile's
 * wrapper (`--record`); the members of a fallback chain are made apart, unwrapped, because the
 * chain as a whole is what an agent asks and what a cassette records. `first`: the model is asked
 * first (not a fallback member further down), so with `requireKeys` what it lacks is an error (a
 * warning, the model kept, with `'warn'`).
 */
async function makeProvider(
  definition: ModelDefinition,
  named: SpecEntry | undefined,
  where: SpecEntry,
  at: Array<string | number>,
  compiler: Compiler,
  wrapped: boolean,
  first: boolean,
): Promise<ModelProvider | undefined> {
  let path = at;
  const keyEnv = definition.apiKeyEnv;
  const replaying = named !== undefined && replaysInstead(definition, compiler);
  if (
    replaying ||
    (definition.provider === 'offline' && definition.model === 'replay' && definition.cassette)
  )
    path = ['cassette'];
  // A model that replays needs no provider package: the cassette stands in for it.
  const factory: ProviderFactory | undefined = replaying
    ? (m, ctx) => replayFromSpec(m, ctx, true)
    : compiler.registry.providers.get(definition.provider);
  if (!factory) {
    const known = [...compiler.registry.providers.keys()].join(', ');
    compiler.error(
      where,
      path,
      'unknown-provider',
      `provider \`${definition.provider}\` of model \`${definition.name}\` is not available (registered: ${known})`,
    );
    return undefined;
  }
  const key = wrapped ? definition.name : `fallback member ${definition.name}`;
  let pending = compiler.providers.get(key);
  if (!pending) {
    const model = definition;
    if (replaying) {
      const blame = keyEnv ? `${keyEnv} is not set` : 'its api_key is empty';
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
    let lacking: string | undefined;
    pending = compiler.attempt(where, path, 'provider', async () => {
      const made = await factory(model, compiler.factoryContext(where));
      // An inline model that `--model` gives is written nowhere in the YAML the line points at.
      const given = named === undefined && compiler.modelOverride === model.name;
      if (first && compiler.requireKeys) lacking = lackingOf(made, model, given, compiler.keyHint);
      return wrapped && compiler.wrapProvider ? compiler.wrapProvider(made, model, compiler.secrets) : made;
    });
    compiler.providers.set(key, pending);
    const made = await pending;
    if (made?.dispose) compiler.disposers.push(() => made.dispose?.() ?? Promise.resolve());
    if (lacking !== undefined) {
      const keyPath = named && (named.spec as ModelSpec).api_key !== undefined ? ['api_key'] : path;
      if (compiler.requireKeys === 'warn') {
        const until = `${lacking} (until it is set, runs on this model fail)`;
        compiler.diagnostics.push(diagnostic(where.file, where.locate(keyPath), 'api-key', until, 'warning'));
        return pending;
      }
      compiler.error(where, keyPath, 'api-key', lacking);
      compiler.providers.set(key, Promise.resolve(undefined));
      return undefined;
    }
  }
  return pending;
}

// What a provider's preflight says it lacks (its first request would fail with it), or undefined.
function lackingOf(
  provider: ModelProvider,
  model: ModelDefinition,
  given: boolean,
  hint: string,
): string | undefined {
  try {
    provider.preflight?.();
    return undefined;
  } catch (error) {
    // The key lookup's error names the variable it read (apiKeyLookup's context).
    const env = (error as { context?: { env?: unknown } } | undefined)?.context?.env;
    if (typeof env !== 'string') return error instanceof Error ? error.message : String(error);
    const inline = model.name === `${model.provider}/${model.model}`;
    const id = given
      ? ' (given by --model)'
      : model.model && !inline
        ? ` (${model.provider} ${model.model})`
        : '';
    return `model \`${model.name}\`${id} has no API key: set ${env} in the environment or the project's .env, or \`api_key:\` in a \`kind: model\`${hint ? `; or ${hint}` : ''}`;
  }
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
        const member = name === definition.name ? definition : entry && definitionOf(entry, compiler);
        if (!entry || !member) return undefined;
        // A member further down is asked only when the ones before it fail: it may lack its key.
        const first = name === definition.name;
        const provider = await makeProvider(member, entry, entry, ['provider'], compiler, false, first);
        if (!provider) return undefined;
        members.push({ name, model: member.model, provider, pricing: pricingOf(member) });
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
function replaysInstead(model: ModelDefinition, compiler: Compiler): boolean {
  // A provider that does not say it works offline is taken to need the network (and a key).
  const network = compiler.registry.describe('provider', model.provider)?.capabilities?.needsNetwork;
  return network !== false && model.cassette !== undefined && !model.apiKey;
}

function shown(compiler: Compiler, where: SpecEntry, written: string | undefined): string {
  return written === undefined
    ? ''
    : displayPath(compiler.root, resolveProjectPath(compiler.root, where.absFile, written).absolute);
}
