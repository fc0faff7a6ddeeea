import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../packages/cli/src/default-registry.js';
import {
  compileProject,
  filesystem,
  loadProject,
  memory,
  shell,
  think,
  todo,
} from '../packages/config/src/index.js';
import { type AnyTool, type JsonSchema, LlmAgent } from '../packages/core/src/index.js';
import { compilePlainSchema } from '../packages/core/src/loop/plain-schema.js';
import { compiledValidator } from '../packages/core/src/loop/schema-validator.js';
import { BUILTIN_TOOLS } from '../packages/core/src/tools/builtin-tools.js';
import { ajvCheck, seeded, valuesFor } from '../packages/core/test/support/schema-corpus.js';
import { REPO } from './support/cli.js';

// Every JSON Schema the repository itself gives a model or checks an answer with: the example
// project's tools and output schemas, the built-in tools and the toolbox.
async function repositorySchemas(): Promise<Map<string, unknown>> {
  const schemas = new Map<string, unknown>();
  const add = (where: string, tool: AnyTool) => schemas.set(`${where} tool ${tool.name}`, tool.parameters);
  const project = await loadProject({ cwd: REPO, env: {} });
  const { runtime, diagnostics } = await compileProject(project, { registry: defaultRegistry() });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  try {
    for (const agent of runtime?.agents.values() ?? []) {
      if (!(agent instanceof LlmAgent)) continue;
      for (const tool of agent.tools.values()) add(`agent ${agent.name}`, tool);
      const output = agent.getConfig().outputSchema;
      if (output) schemas.set(`agent ${agent.name} output_schema`, output);
    }
  } finally {
    await runtime?.dispose();
  }
  for (const [name, make] of Object.entries(BUILTIN_TOOLS)) add(`builtin ${name}`, make({}));
  for (const tool of [...filesystem({ root: REPO }), memory(), shell({ root: REPO }), think(), todo()])
    add('toolbox', tool);
  return schemas;
}

describe("the repository's own schemas take the plain validator, with Ajv's verdicts and errors", () => {
  it('every example tool, built-in and toolbox schema and output schema', async () => {
    const schemas = await repositorySchemas();
    expect(schemas.size).toBeGreaterThan(15);
    const random = seeded(20);
    const needAjv: string[] = [];
    for (const [where, schema] of schemas) {
      // The path a run takes: a validator ready without Ajv.
      if (!compiledValidator(schema as JsonSchema)) needAjv.push(where);
      // Both validators get the schema without another dialect's `$schema`, as schemaValidator gives it.
      const { $schema, ...rest } = schema as JsonSchema;
      const given =
        $schema === undefined || $schema === 'https://json-schema.org/draft/2020-12/schema' ? schema : rest;
      const plain = compilePlainSchema(given);
      if (!plain) continue;
      const reference = ajvCheck(given);
      for (const value of valuesFor(schema, random, 60)) {
        expect(plain(value), `${where} on ${JSON.stringify(value)}`).toEqual(reference(value));
      }
    }
    expect(needAjv).toEqual([]);
  });
});
