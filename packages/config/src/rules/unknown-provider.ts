import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { didYouMean } from '../load/did-you-mean.js';
import type { ModelSpec, ProjectSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { modelRef } from './model-ref.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/** The message for a provider name the registry does not know, or undefined when it does. */
export function unknownProviderMessage(provider: string, known: readonly string[]): string | undefined {
  if (known.includes(provider)) return undefined;
  return `provider \`${excerpt(provider)}\` is not available${didYouMean(provider, known)} (registered: ${known.join(', ')})`;
}

/** Every provider a model or an inline `provider/model` names is registered (asked of the registry). */
export function unknownProvider(ctx: RuleContext): Diagnostic[] {
  if (!ctx.registry) return [];
  const known = ctx.registry.names('provider');
  const out: Diagnostic[] = [];
  const check = (provider: string, file: string, range: () => SourceRange, told = (m: string) => m) => {
    if (provider.includes('${')) return;
    const message = unknownProviderMessage(provider, known);
    if (message) out.push(diagnostic(file, range(), 'unknown-provider', told(message)));
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model'))
    check(model.spec.provider, model.file, () => model.locate(['provider']));
  const inline = (written: string | undefined, file: string, range: () => SourceRange) => {
    const model = modelRef(written, ctx.env);
    const ref = model?.ref;
    if (model && ref !== undefined && ref.indexOf('/') > 0 && !ctx.specs.model.has(ref))
      check(ref.slice(0, ref.indexOf('/')), file, range, model.told);
  };
  for (const agent of validAgents(ctx)) inline(agent.spec.model, agent.file, () => agent.locate(['model']));
  const project = ctx.specs.project;
  if (project)
    inline((project.spec as ProjectSpec).defaults?.model, project.file, () =>
      project.locate(['defaults', 'model']),
    );
  return out;
}
