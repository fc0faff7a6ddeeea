import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ProjectSpecs } from '../load/project-specs.js';
import { normaliseOptions } from '../normalise/normalise-options.js';
import type { JsonSchema, PluginProblem, Registry } from '../registry.js';
import type { ModelSpec, ProjectSpec } from '../spec-types.js';
import { type RuleContext, validAgents } from './rule.js';

/** A problem a provider has with an agent's `output_schema`, for one model the agent may ask. */
export interface OutputSchemaProblem extends PluginProblem {
  /** The model (as named, or `provider/model`) whose provider refuses the schema. */
  model: string;
}

/**
 * What the providers of the model `ref` names (a `kind: model` and the models of its `fallback`
 * chain, or an inline `provider/model`) refuse in `schema`, by their registered
 * `outputSchemaRules`. Read from the specs as written: the options these rules read (OpenAI's
 * `strict_output`) are literal, so `validate` and `run` see the same.
 */
export function outputSchemaProblems(
  ref: string,
  schema: JsonSchema,
  specs: ProjectSpecs,
  registry: Registry,
): OutputSchemaProblem[] {
  const out: OutputSchemaProblem[] = [];
  const seen = new Set<string>();
  const check = (name: string) => {
    if (seen.has(name) || name.includes('${')) return;
    seen.add(name);
    const named = specs.model.get(name)?.spec as ModelSpec | undefined;
    const slash = name.indexOf('/');
    const provider = named ? named.provider : slash > 0 ? name.slice(0, slash) : undefined;
    const descriptor = provider === undefined ? undefined : registry.describe('provider', provider);
    const rules = descriptor?.outputSchemaRules ?? [];
    if (rules.length > 0) {
      const options = optionsOf(named, descriptor?.schema);
      if (options)
        for (const rule of rules)
          for (const problem of rule(schema, options)) out.push({ ...problem, model: name });
    }
    for (const next of named?.fallback ?? []) check(next);
  };
  check(ref);
  return out;
}

// A model's options as its provider's factory takes them, or undefined when they are not literal.
function optionsOf(
  named: ModelSpec | undefined,
  schema: JsonSchema | undefined,
): Record<string, unknown> | undefined {
  const { extra_body: _, ...options } = (named?.options ?? {}) as Record<string, unknown>;
  try {
    return normaliseOptions(options, schema);
  } catch {
    return undefined; // a duration written with ${VAR}: env-values and compile speak of it
  }
}

/** The message of a problem, naming the model it is for. */
export function outputSchemaMessage(problem: OutputSchemaProblem): string {
  return `output_schema for model \`${problem.model}\`: ${problem.message}`;
}

/**
 * Each agent's `output_schema` against what the provider of its model accepts (OpenAI's strict
 * structured output): the API refuses such a schema at every run, so `validate` says where.
 */
export function providerOutputSchema(ctx: RuleContext): Diagnostic[] {
  const registry = ctx.registry;
  if (!registry) return [];
  const fallback = (ctx.specs.project?.spec as ProjectSpec | undefined)?.defaults?.model;
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    const schema = agent.spec.output_schema;
    if (schema === null || typeof schema !== 'object') continue;
    const ref = agent.spec.model ?? fallback ?? 'offline/echo';
    for (const problem of outputSchemaProblems(ref, schema as JsonSchema, ctx.specs, registry))
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['output_schema', ...problem.path], { key: problem.key }),
          'output-schema-provider',
          outputSchemaMessage(problem),
          problem.severity ?? 'error',
        ),
      );
  }
  return out;
}
