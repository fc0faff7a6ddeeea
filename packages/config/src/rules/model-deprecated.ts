import { modelInfo } from '../compile/model-catalogue.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ModelSpec } from '../spec-types.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/**
 * A warning for each model the catalogue knows to be deprecated, named in a `kind: model` or
 * inline as an agent's `provider/model`, so CI hears of a retirement before the API refuses it.
 */
export function modelDeprecated(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    const notice = modelInfo(model.spec.provider, model.spec.model ?? '')?.deprecated;
    if (notice)
      out.push(
        diagnostic(
          model.file,
          model.locate(['model']),
          'model-deprecated',
          `${model.spec.provider} model \`${model.spec.model}\` is deprecated: ${notice}`,
          'warning',
        ),
      );
  }
  for (const agent of validAgents(ctx)) {
    const ref = agent.spec.model;
    const slash = ref?.indexOf('/') ?? -1;
    if (!ref || slash <= 0 || ctx.specs.model.has(ref)) continue;
    const notice = modelInfo(ref.slice(0, slash), ref.slice(slash + 1))?.deprecated;
    if (notice)
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['model']),
          'model-deprecated',
          `model \`${ref}\` is deprecated: ${notice}`,
          'warning',
        ),
      );
  }
  return out;
}
