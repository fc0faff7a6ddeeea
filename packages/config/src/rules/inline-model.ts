import type { ErrorObject } from 'ajv';
import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { didYouMean } from '../load/did-you-mean.js';
import { kindValidator } from '../schemas.js';
import type { ProjectSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { modelRef } from './model-ref.js';
import { type RuleContext, validAgents } from './rule.js';

/**
 * An inline `provider/model` (an agent's `model`, the project's `defaults.model`) is the model
 * document compile makes of it, so it must pass the model schema as one: `offline/nope` is no
 * offline model, and `offline/replay` has nowhere to name its cassette.
 */
export function inlineModel(ctx: RuleContext): Diagnostic[] {
  const known = ctx.registry?.names('provider');
  const out: Diagnostic[] = [];
  const check = (written: string | undefined, file: string, range: () => SourceRange) => {
    const model = modelRef(written, ctx.env);
    const ref = model?.ref;
    const slash = ref?.indexOf('/') ?? -1;
    if (!model || ref === undefined || slash <= 0 || ref.includes('${') || ctx.specs.model.has(ref)) return;
    if (known && !known.includes(ref.slice(0, slash))) return; // unknown-provider's
    const message = inlineModelProblem(ref);
    if (message)
      out.push(
        diagnostic(file, range(), 'inline-model', model.told(`model \`${excerpt(ref)}\`: ${message}`)),
      );
  };
  for (const agent of validAgents(ctx)) check(agent.spec.model, agent.file, () => agent.locate(['model']));
  const project = ctx.specs.project;
  const fallback = (project?.spec as ProjectSpec | undefined)?.defaults?.model;
  if (project) check(fallback, project.file, () => project.locate(['defaults', 'model']));
  return out;
}

/**
 * What is wrong with `provider/model` as the model document compile makes of it (the provider
 * is registered: that is checked apart), or undefined when nothing is. The caller names the model.
 */
export function inlineModelProblem(ref: string): string | undefined {
  const slash = ref.indexOf('/');
  const provider = ref.slice(0, slash);
  const model = ref.slice(slash + 1);
  const validate = kindValidator('model');
  if (validate({ kind: 'model', name: 'inline', provider, model })) return undefined;
  return problem(provider, model, validate.errors ?? []);
}

function problem(provider: string, model: string, errors: readonly ErrorObject[]): string {
  const choices = errors.find((e) => e.instancePath === '/model' && e.keyword === 'enum');
  if (choices) {
    const allowed = (choices.params as { allowedValues: unknown[] }).allowedValues.map(String);
    return `provider \`${provider}\` has no model \`${excerpt(model)}\`${didYouMean(model, allowed)} (its models: ${allowed.join(', ')})`;
  }
  const needs = errors.find((e) => e.keyword === 'required');
  if (needs) {
    const key = (needs.params as { missingProperty: string }).missingProperty;
    return `it needs \`${key}:\`, which an inline model cannot give; declare a \`kind: model\` with it`;
  }
  const first = errors[0];
  return `not a valid model: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim();
}
