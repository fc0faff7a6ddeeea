import { CATALOGUE_DATE, catalogueIds, modelInfo } from '../compile/model-catalogue.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { nearest } from '../load/did-you-mean.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { ModelSpec, ProjectSpec } from '../spec-types.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/**
 * A warning for a model id the catalogue does not know but is a likely typo of one it does
 * (`gpt-4o-mnii`), on a provider it covers: the provider would refuse it at every run. A warning,
 * not an error: the catalogue cannot know every new model, and an id that differs from a known one
 * only in its numbers (`gpt-5.1`, `claude-opus-4-7`), or only by what it adds at its end or lacks
 * there (`gpt-4` beside `gpt-4o`), is taken for a model it has not heard of.
 */
export function modelId(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (entry: Locatable, path: string[], provider: string, id: string, shown: string) => {
    const guess = modelIdTypo(provider, id);
    if (guess === undefined) return;
    out.push(
      diagnostic(
        entry.file,
        entry.locate(path),
        'model-id',
        `${shown}: ${provider} has no model \`${id}\` in agentctl's catalogue (of ${CATALOGUE_DATE}); did you mean \`${guess}\`?`,
        'warning',
      ),
    );
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    const { provider, model: id } = model.spec;
    if (id) check(model, ['model'], provider, id, `model \`${model.name}\``);
  }
  const inline = (entry: Locatable, path: string[], ref: string | undefined) => {
    const slash = ref?.indexOf('/') ?? -1;
    if (ref && slash > 0 && !ref.includes('${') && !ctx.specs.model.has(ref))
      check(entry, path, ref.slice(0, slash), ref.slice(slash + 1), `model \`${ref}\``);
  };
  for (const agent of validAgents(ctx)) inline(agent, ['model'], agent.spec.model);
  const project = ctx.specs.project;
  if (project) inline(project, ['defaults', 'model'], (project.spec as ProjectSpec).defaults?.model);
  return out;
}

type Locatable = Pick<IndexedEntry, 'file' | 'locate'>;

/**
 * The catalogued id of `provider` that `id` is most likely a misspelling of (`gpt-4o-mini` for
 * `gpt-4o-mnii`), or undefined: for a known id, another version, or a name not close to any.
 */
export function modelIdTypo(provider: string, id: string): string | undefined {
  if (id.includes('${') || modelInfo(provider, id) !== undefined) return undefined;
  const known = catalogueIds(provider);
  const guess = nearest(id, known);
  if (guess === undefined) return undefined;
  // Another version (`gpt-5.1`), or a shorter or longer name of the family (`gpt-4` beside
  // `gpt-4o`, `o3-pro` beside `o3`), is a model the catalogue may not have, not a typo.
  const shape = (text: string) => text.toLowerCase().replace(/\d+/g, '#');
  if (shape(guess) === shape(id) || guess.startsWith(id) || id.startsWith(guess)) return undefined;
  return guess;
}
