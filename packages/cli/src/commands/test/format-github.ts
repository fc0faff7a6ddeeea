import type { Diagnostic } from '@agentctl/config';
import { formatGithub as formatAnnotations } from '../validate/format-github.js';
import { formatText } from './format-text.js';
import { resumeCommands } from './stop-commands.js';
import type { Summary } from './summary.js';
import type { TestResult } from './test-result.js';

/**
 * GitHub Actions annotations at each failing expectation's line (the same workflow commands as
 * `validate --format github`), after the text report for the job log. The report quotes what the
 * agents said and the errors they hit, so the runner reads no workflow command in it: it comes
 * while commands are stopped by {@link stopCommands} (`::stop-commands::` with a token the report
 * cannot guess), which this ends before the annotations. A model's answer or a tool's error holding
 * `::error::`, `##[error]` or `::add-mask::` does not become an annotation or a mask.
 */
export function formatGithub(
  results: readonly TestResult[],
  summary: Summary,
  root: string,
  base: string,
  token: string,
): string {
  const annotations: Diagnostic[] = results.flatMap((r) => [
    ...r.failures.map((f) => ({
      file: r.file,
      ...f.range,
      severity: 'error' as const,
      rule: 'test',
      message: `${r.name}: turn ${f.turn + 1}, ${f.expectation}: ${f.message}${f.expected === undefined ? '' : `\nexpected: ${JSON.stringify(f.expected)}`}${f.actual === undefined ? '' : `\nactual: ${JSON.stringify(f.actual)}`}`,
    })),
    ...(r.error
      ? [
          {
            file: r.file,
            ...r.error.range,
            severity: 'error' as const,
            rule: 'test',
            message: `${r.name}: ${r.error.message}`,
          },
        ]
      : []),
  ]);
  return `${formatText(results, summary, false)}${resumeCommands(token)}${formatAnnotations(annotations, root, base)}`;
}
