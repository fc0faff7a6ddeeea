import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { didYouMean } from '../load/did-you-mean.js';
import type { ModelSpec, ProjectSpec } from '../spec-types.js';
import { OPENAI_COMPATIBLE_SERVERS } from './compatible-servers.js';
import { excerpt } from './excerpt.js';
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
  const check = (provider: string, file: string, range: () => SourceRange, inline?: string) => {
    if (provider.includes('${')) return;
    const message = unknownProviderMessage(provider, known, inline);
    if (message) out.push(diagnostic(file, range(), 'unknown-provider', message));
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model'))
    check(model.spec.provider, model.file, () => model.locate(['provider']));
  const inline = (ref: string | undefined) =>
    ref !== undefined && ref.indexOf('/') > 0 && !ctx.specs.model.has(ref)
      ? ref.slice(0, ref.indexOf('/'))
      : undefined;
  const id = (ref: string | undefined) => ref?.slice(ref.indexOf('/') + 1);
  for (const agent of validAgents(ctx)) {
    const provider = inline(agent.spec.model);
    if (provider !== undefined)
      check(provider, agent.file, () => agent.locate(['model']), id(agent.spec.model));
  }
  const project = ctx.specs.project;
  const defaults = (project?.spec as ProjectSpec | undefined)?.defaults?.model;
  const fallback = inline(defaults);
  if (project && fallback !== undefined)
    check(fallback, project.file, () => project.locate(['defaults', 'model']), id(defaults));
  return out;
}
