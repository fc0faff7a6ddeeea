import { modelInfo } from '../compile/model-catalogue.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { ModelSpec } from '../spec-types.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/**
 * A warning for a `max_output_tokens` above the longest answer the catalogue knows the model can
 * give: the APIs refuse such a request (HTTP 400) rather than cap it, so every run would fail.
 * A warning, not an error: a model behind another `base_url` may share the name, not the limit.
 */
export function outputLimit(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (entry: IndexedEntry, asked: unknown, provider: string, model: string, who: string) => {
    const limit = modelInfo(provider, model)?.maxOutputTokens;
    if (typeof asked !== 'number' || limit === undefined || asked <= limit) return;
    out.push(
      diagnostic(
        entry.file,
        entry.locate(['max_output_tokens']),
        'output-limit',
        `max_output_tokens ${asked} of ${who} is more than ${provider} model \`${model}\` can answer with (${limit}); the API refuses such a request`,
        'warning',
      ),
    );
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    const { provider, model: id } = model.spec;
    if (id) check(model, model.spec.max_output_tokens, provider, id, `model \`${model.name}\``);
  }
  for (const agent of validAgents(ctx)) {
    const ref = agent.spec.model;
    const asked = (agent.spec as { max_output_tokens?: unknown }).max_output_tokens;
    if (!ref || asked === undefined) continue;
    const named = ctx.specs.model.get(ref)?.spec as ModelSpec | undefined;
    const slash = ref.indexOf('/');
    const [provider, id] = named
      ? [named.provider, named.model]
      : slash > 0
        ? [ref.slice(0, slash), ref.slice(slash + 1)]
        : [undefined, undefined];
    if (provider && id) check(agent, asked, provider, id, `agent \`${agent.name}\``);
  }
  return out;
}
