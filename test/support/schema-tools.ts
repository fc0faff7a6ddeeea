import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FIXTURES, REPO } from './cli.js';

/** A compiled JSON Schema: true when the data fits; `errors` says why not. */
export type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

// ajv and yaml are dependencies of @agentctl/config, not of the repository root: resolve them there.
const require = createRequire(join(REPO, 'packages/config/package.json'));

/**
 * Compiles a draft 2020-12 schema (with formats), after adding the schema files it refers to.
 * `strict: 'all'` also refuses keywords whose type or required names the schema leaves out.
 */
export function schemaValidator(
  schema: object,
  referenced: readonly string[] = [],
  strict: 'all' | 'like-config' = 'like-config',
): Validate {
  const { Ajv2020 } = require('ajv/dist/2020.js') as {
    Ajv2020: new (
      options: object,
    ) => {
      addSchema(schema: unknown): unknown;
      compile(schema: unknown): Validate;
    };
  };
  const addFormats = require('ajv-formats') as (ajv: unknown) => unknown;
  // 'like-config' matches the options @agentctl/config compiles the project schemas with.
  const loose = strict === 'like-config';
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: !loose, strictRequired: !loose });
  addFormats(ajv);
  for (const file of referenced) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')));
  return ajv.compile(schema);
}

/** A validator for the SARIF 2.1.0 subset agentctl emits (test/fixtures/sarif-2.1.0-subset.schema.json). */
export function sarifValidator(): Validate {
  const file = join(FIXTURES, 'sarif-2.1.0-subset.schema.json');
  return schemaValidator(JSON.parse(readFileSync(file, 'utf8')), [], 'all');
}

/** Parses YAML text with the same library the config loader uses. */
export function parseYaml(text: string): Record<string, unknown> {
  return (require('yaml') as { parse(text: string): Record<string, unknown> }).parse(text);
}
