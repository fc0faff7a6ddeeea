import type { ErrorObject } from 'ajv';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { locate, locateKey } from './document-positions.js';
import type { ParsedDocument } from './parse-file.js';
import { schemaProblems } from './schema-problems.js';

/**
 * Turns Ajv's errors for one document into diagnostics: one per real problem (see
 * `schemaProblems`), pointing at the key or value at fault.
 */
export function schemaDiagnostics(
  parsed: ParsedDocument,
  errors: readonly ErrorObject[],
  kind: string,
): Diagnostic[] {
  const { positions, file } = parsed;
  const subject = { whole: kind, kind, field: (name: string) => `\`${name}\`` };
  return schemaProblems(errors, subject).map((problem) => {
    // A key missing from the document itself is shown at its first key.
    const path =
      problem.key && problem.path.length === 0
        ? [Object.keys(parsed.value as object)[0] ?? '']
        : problem.path;
    const range = problem.key ? locateKey(positions, path) : locate(positions, path);
    return diagnostic(file, range, problem.rule, problem.message);
  });
}
