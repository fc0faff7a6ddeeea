import { modelInfo } from '../compile/model-catalogue.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { ModelSpec } from '../spec-types.js';
import { providerOf, type RuleContext, validAgents, validEntries } from './rule.js';

const SETTINGS = ['temperature', 'top_p'] as const;

/**
 * A model or agent sets a sampling field its provider's API does not take (the provider's
 * descriptor lists them in `capabilities.unsupportedSettings`, e.g. Anthropic's temperature and
 * top_p): said now rather than refused by the API, or silently dropped. A reasoning model the
 * catalogue knows (o3, gpt-5) given one other than 1 gets a warning.
 */
export function unsupportedSetting(ctx: RuleContext): Diagnostic[] {
  const registry = ctx.registry;
  if (!registry) return [];
  const out: Diagnostic[] = [];
  const check = (entry: IndexedEntry, provider: string | undefined, who: string) => {
    const refused =
      (provider && registry.describe('provider', provider)?.capabilities?.unsupportedSettings) || [];
    const spec = entry.spec as Partial<Record<(typeof SETTINGS)[number], unknown>>;
    for (const key of SETTINGS)
      if (refused.includes(key) && spec[key] !== undefined)
        out.push(
          diagnostic(
            entry.file,
            entry.locate([key], { key: true }),
            'unsupported-setting',
            `provider ${provider} does not accept \`${key}\`; remove it from ${who}`,
          ),
        );
  };
  // A catalogued reasoning model takes temperature and top_p only at 1: a warning, as a server
  // behind another base_url may share the name and not the rule.
  const fixed = (
    entry: IndexedEntry,
    provider: string | undefined,
    model: string | undefined,
    who: string,
  ) => {
    if (!provider || !model || !modelInfo(provider, model)?.fixedSampling) return;
    const spec = entry.spec as Partial<Record<(typeof SETTINGS)[number], unknown>>;
    for (const key of SETTINGS)
      if (typeof spec[key] === 'number' && spec[key] !== 1)
        out.push(
          diagnostic(
            entry.file,
            entry.locate([key]),
            'unsupported-setting',
            `${provider} model \`${model}\` takes \`${key}\` only at 1 (a reasoning model); the API refuses ${String(spec[key])}: remove it from ${who}`,
            'warning',
          ),
        );
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    check(model, model.spec.provider, `model \`${model.name}\``);
    fixed(model, model.spec.provider, model.spec.model, `model \`${model.name}\``);
  }
  for (const agent of validAgents(ctx)) {
    const provider = providerOf(agent.spec.model, ctx);
    check(agent, provider, `agent \`${agent.name}\` (its model is on ${provider})`);
    fixed(agent, provider, modelIdOf(agent.spec.model, ctx), `agent \`${agent.name}\``);
  }
  return out;
}

// The provider's id of the model an agent names: a model document's `model`, or an inline one's.
function modelIdOf(ref: string | undefined, ctx: RuleContext): string | undefined {
  if (ref === undefined) return undefined;
  const named = ctx.specs.model.get(ref);
  if (named) return (named.spec as ModelSpec).model;
  const slash = ref.indexOf('/');
  return slash > 0 ? ref.slice(slash + 1) : undefined;
}
