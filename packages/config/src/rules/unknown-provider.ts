import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { didYouMean } from '../load/did-you-mean.js';
import type { ModelSpec, ProjectSpec } from '../spec-types.js';
import { OPENAI_COMPATIBLE_SERVERS } from './compatible-servers.js';
import { excerpt } from './excerpt.js';
import { modelRef } from './model-ref.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/**
 * The message for a provider name the registry does not know, or undefined when it does.
 * `inline` is the model id of an inline `provider/model`, which a server's hint then writes out.
 */
export function unknownProviderMessage(
  provider: string,
  known: readonly string[],
  inline?: string,
): string | undefined {
  if (known.includes(provider)) return undefined;
  const server = known.includes('openai') ? OPENAI_COMPATIBLE_SERVERS.get(provider.toLowerCase()) : undefined;
  const hint = !server
    ? didYouMean(provider, known)
    : inline === undefined
      ? `; ${server.name} speaks the OpenAI API: write \`provider: openai\` with \`base_url: ${server.baseUrl}\``
      : `; ${server.name} speaks the OpenAI API: use, by its name, a \`kind: model\` with \`provider: openai\`, \`model: ${excerpt(inline)}\` and \`base_url: ${server.baseUrl}\``;
  return `provider \`${excerpt(provider)}\` is not available${hint} (registered: ${known.join(', ')})`;
}

/** Every provider a model or an inline `provider/model` names is registered (asked of the registry). */
export function unknownProvider(ctx: RuleContext): Diagnostic[] {
  if (!ctx.registry) return [];
  const known = ctx.registry.names('provider');
  const out: Diagnostic[] = [];
  const check = (
    provider: string,
    file: string,
    range: () => SourceRange,
    told = (m: string) => m,
    inline?: string,
  ) => {
    if (provider.includes('${')) return;
    const message = unknownProviderMessage(provider, known, inline);
    if (message) out.push(diagnostic(file, range(), 'unknown-provider', told(message)));
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model'))
    check(model.spec.provider, model.file, () => model.locate(['provider']));
  const inline = (written: string | undefined, file: string, range: () => SourceRange) => {
    const model = modelRef(written, ctx.env);
    const ref = model?.ref;
    if (model && ref !== undefined && ref.indexOf('/') > 0 && !ctx.specs.model.has(ref))
      check(ref.slice(0, ref.indexOf('/')), file, range, model.told, ref.slice(ref.indexOf('/') + 1));
  };
  for (const agent of validAgents(ctx)) inline(agent.spec.model, agent.file, () => agent.locate(['model']));
  const project = ctx.specs.project;
  if (project)
    inline((project.spec as ProjectSpec).defaults?.model, project.file, () =>
      project.locate(['defaults', 'model']),
    );
  return out;
}
