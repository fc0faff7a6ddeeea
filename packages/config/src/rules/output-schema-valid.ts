import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { jsonSchemaProblem } from '../load/json-schema-problem.js';
import type { ToolSpec } from '../spec-types.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/** Why a JSON Schema does not compile, or undefined when it does. */
export const schemaProblem = jsonSchemaProblem;

/** `output_schema` of agents and `parameters` of tools are valid JSON Schemas. */
export function outputSchemaValid(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    if (agent.spec.output_schema === undefined) continue;
    const problem = schemaProblem(agent.spec.output_schema);
    if (problem)
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['output_schema']),
          'output-schema-valid',
          `output_schema is not a valid JSON Schema: ${problem}`,
        ),
      );
  }
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    if (tool.spec.parameters === undefined) continue;
    const problem = schemaProblem(tool.spec.parameters);
    if (problem)
      out.push(
        diagnostic(
          tool.file,
          tool.locate(['parameters']),
          'output-schema-valid',
          `parameters is not a valid JSON Schema: ${problem}`,
        ),
      );
  }
  return out;
}
