import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ModelSpec } from '../spec-types.js';
import { providerOf, type RuleContext, validAgents, validEntries } from './rule.js';

const MESSAGE = "Anthropic's API does not accept temperature or top_p; remove";

/** Anthropic models take no `temperature`/`top_p`: say so now rather than fail at the API. */
export function anthropicSampling(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    if (model.spec.provider !== 'anthropic') continue;
    for (const key of ['temperature', 'top_p'] as const) {
      if (model.spec[key] !== undefined)
        out.push(
          diagnostic(
            model.file,
            model.locate([key], { key: true }),
            'anthropic-sampling',
            `${MESSAGE} \`${key}\` from model \`${model.name}\``,
          ),
        );
    }
  }
  for (const agent of validAgents(ctx)) {
    if (providerOf(agent.spec.model, ctx) !== 'anthropic') continue;
    for (const key of ['temperature', 'top_p'] as const) {
      if (agent.spec[key] !== undefined)
        out.push(
          diagnostic(
            agent.file,
            agent.locate([key], { key: true }),
            'anthropic-sampling',
            `${MESSAGE} \`${key}\` from agent \`${agent.name}\` (its model is on anthropic)`,
          ),
        );
    }
  }
  return out;
}
