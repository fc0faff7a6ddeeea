import { modelInfo } from '../compile/model-catalogue.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { ModelSpec } from '../spec-types.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/**
 * A warning for each model the catalogue knows to be deprecated, named in a `kind: model` or
 * inline as an agent's `provider/model`, so CI hears of a retirement before the API refuses it.
 */
export function modelDeprecated(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (entry: IndexedEntry, provider: string, model: string, shown: string) => {
    const notice = modelInfo(provider, model)?.deprecated;
    if (notice)
      out.push(
        diagnostic(
          entry.file,
          entry.locate(['model']),
          'model-deprecated',
          `${shown} is deprecated: ${notice}`,
          'warning',
        ),
      );
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    const { provider, model: id = '' } = model.spec;
    check(model, provider, id, `${provider} model \`${id}\``);
  }
  for (const agent of validAgents(ctx)) {
    const ref = agent.spec.model;
    const slash = ref?.indexOf('/') ?? -1;
    if (ref && slash > 0 && !ctx.specs.model.has(ref))
      check(agent, ref.slice(0, slash), ref.slice(slash + 1), `model \`${ref}\``);
  }
  return out;
}
