import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FIXTURES, REPO } from './cli.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

// ajv is a dependency of @agentctl/config, not of the repository root: resolve it from there.
const require = createRequire(join(REPO, 'packages/config/package.json'));

/** A validator for the SARIF 2.1.0 subset agentctl emits (test/fixtures/sarif-2.1.0-subset.schema.json). */
export function sarifValidator(): Validate {
  const { Ajv2020 } = require('ajv/dist/2020.js') as {
    Ajv2020: new (
      options: object,
    ) => {
      compile(schema: unknown): Validate;
    };
  };
  const addFormats = require('ajv-formats') as (ajv: unknown) => unknown;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const schema = JSON.parse(readFileSync(join(FIXTURES, 'sarif-2.1.0-subset.schema.json'), 'utf8'));
  return ajv.compile(schema);
}
