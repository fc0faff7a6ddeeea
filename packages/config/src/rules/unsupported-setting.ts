import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ModelSpec } from '../spec-types.js';
import { providerOf, type RuleContext, validAgents, validEntries } from './rule.js';

type Setting = 'temperature' | 'top_p';
const SETTINGS: readonly Setting[] = ['temperature', 'top_p'];

/**
 * A model or agent sets a sampling field its provider's API does not take (the provider's
 * descriptor lists them in `capabilities.unsupportedSettings`, e.g. Anthropic's temperature and
 * top_p): said now rather than refused by the API, or silently dropped.
 */
export function unsupportedSetting(ctx: RuleContext): Diagnostic[] {
  const registry = ctx.registry;
  if (!registry) return [];
  const refused = (provider: string | undefined): readonly string[] =>
    (provider && registry.describe('provider', provider)?.capabilities?.unsupportedSettings) || [];
  const out: Diagnostic[] = [];
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    const no = refused(model.spec.provider);
    for (const key of SETTINGS)
      if (no.includes(key) && model.spec[key] !== undefined)
        out.push(
          diagnostic(
            model.file,
            model.locate([key], { key: true }),
            'unsupported-setting',
            `provider ${model.spec.provider} does not accept \`${key}\`; remove it from model \`${model.name}\``,
          ),
        );
  }
  for (const agent of validAgents(ctx)) {
    const provider = providerOf(agent.spec.model, ctx);
    const no = refused(provider);
    for (const key of SETTINGS)
      if (no.includes(key) && agent.spec[key] !== undefined)
        out.push(
          diagnostic(
            agent.file,
            agent.locate([key], { key: true }),
            'unsupported-setting',
            `provider ${provider} does not accept \`${key}\`; remove it from agent \`${agent.name}\` (its model is on ${provider})`,
          ),
        );
  }
  return out;
}
