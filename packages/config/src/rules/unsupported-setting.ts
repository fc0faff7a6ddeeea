import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { ModelSpec } from '../spec-types.js';
import { providerOf, type RuleContext, validAgents, validEntries } from './rule.js';

const SETTINGS = ['temperature', 'top_p'] as const;

/**
 * A model or agent sets a sampling field its provider's API does not take (the provider's
 * descriptor lists them in `capabilities.unsupportedSettings`, e.g. Anthropic's temperature and
 * top_p): said now rather than refused by the API, or silently dropped.
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
  for (const model of validEntries<ModelSpec>(ctx, 'model'))
    check(model, model.spec.provider, `model \`${model.name}\``);
  for (const agent of validAgents(ctx)) {
    const provider = providerOf(agent.spec.model, ctx);
    check(agent, provider, `agent \`${agent.name}\` (its model is on ${provider})`);
  }
  return out;
}
