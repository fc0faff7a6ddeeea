import type { ErrorObject } from 'ajv';
import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { kindValidator } from '../schemas.js';
import type { ProjectSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validAgents } from './rule.js';

/**
 * An inline `provider/model` (an agent's `model`, the project's `defaults.model`) is the model
 * document compile makes of it, so it must pass the model schema as one: `offline/nope` is no
 * offline model, and `offline/replay` has nowhere to name its cassette.
 */
export function inlineModel(ctx: RuleContext): Diagnostic[] {
  const known = ctx.registry?.names('provider');
  const out: Diagnostic[] = [];
  const check = (ref: string | undefined, file: string, range: () => SourceRange) => {
    const slash = ref?.indexOf('/') ?? -1;
    if (ref === undefined || slash <= 0 || ref.includes('${') || ctx.specs.model.has(ref)) return;
    const provider = ref.slice(0, slash);
    if (known && !known.includes(provider)) return; // unknown-provider's
    const model = ref.slice(slash + 1);
    const validate = kindValidator('model');
    if (validate({ kind: 'model', name: 'inline', provider, model })) return;
    out.push(diagnostic(file, range(), 'inline-model', problem(ref, provider, model, validate.errors ?? [])));
  };
  for (const agent of validAgents(ctx)) check(agent.spec.model, agent.file, () => agent.locate(['model']));
  const project = ctx.specs.project;
  const fallback = (project?.spec as ProjectSpec | undefined)?.defaults?.model;
  if (project) check(fallback, project.file, () => project.locate(['defaults', 'model']));
  return out;
}

function problem(ref: string, provider: string, model: string, errors: readonly ErrorObject[]): string {
  const shown = `\`${excerpt(ref)}\``;
  const choices = errors.find((e) => e.instancePath === '/model' && e.keyword === 'enum');
  if (choices) {
    const names = (choices.params as { allowedValues: unknown[] }).allowedValues.join(', ');
    return `model ${shown}: provider \`${provider}\` has no model \`${excerpt(model)}\` (its models: ${names})`;
  }
  const needs = errors.find((e) => e.keyword === 'required');
  if (needs) {
    const key = (needs.params as { missingProperty: string }).missingProperty;
    return `model ${shown} needs \`${key}:\`, which an inline model cannot give; declare a \`kind: model\` with it`;
  }
  const first = errors[0];
  return `model ${shown} is not a valid model: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim();
}
