import type { ModelDefinition, ModelPricing, ModelProvider } from '@agentctl/core';
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

/** The model reference an agent uses: the override given to compile, its own, the project default, or offline/echo. */
export function modelRefOf(agent: AgentDefinition, compiler: Compiler): string {
  return compiler.modelOverride ?? agent.model ?? compiler.project.defaults.model ?? 'offline/echo';
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
  if (named) {
    found = compiler.definition('model', named);
    where = named;
    path = ['provider'];
    if (!found) return undefined;
    // `api_key: ${VAR}`: the variable a missing key is blamed on, read from the spec as written.
    found = { ...found, apiKeyEnv: KEY_REFERENCE.exec((named.spec as ModelSpec).api_key ?? '')?.[1] };
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
  let pending = compiler.providers.get(definition.name);
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
    pending = compiler.attempt(where, path, 'provider', async () => {
      const made = await factory(model, compiler.factoryContext(where));
      return compiler.wrapProvider ? compiler.wrapProvider(made, model, compiler.secrets) : made;
    });
    compiler.providers.set(definition.name, pending);
    const made = await pending;
    if (made?.dispose) compiler.disposers.push(() => made.dispose?.() ?? Promise.resolve());
  }
  const provider = await pending;
  if (!provider) return undefined;
  // Prices written in YAML win over the catalogue's list prices.
  const pricing = definition.pricing ?? modelInfo(definition.provider, definition.model ?? '')?.pricing;
  return { provider, definition, pricing };
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
