import type { Diagnostic } from '@agentctl/config';
import type { Summary } from './summary.js';
import type { TestResult } from './test-result.js';

/** Results as one JSON document: `{ summary, tests }`, each failure with its file position. */
export function formatJson(results: readonly TestResult[], summary: Summary): string {
  const tests = results.map((r) => ({
    name: r.name,
    file: r.file,
    line: r.range.line,
    status: r.status,
    duration: r.duration,
    failures: r.failures.map((f) => ({
      turn: f.turn + 1,
      expectation: f.expectation,
      message: f.message,
      expected: f.expected,
      actual: f.actual,
      line: f.range.line,
      col: f.range.col,
    })),
    ...(r.error && { error: { message: r.error.message, line: r.error.range.line, col: r.error.range.col } }),
  }));
  return `${JSON.stringify({ summary, tests }, null, 2)}\n`;
}

/** A project with errors, where no test could run: no tests, and the project's diagnostics. */
export function formatJsonProjectErrors(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const summary: Summary = { total: 0, passed: 0, failed: 0, errors: 0, duration: 0 };
  return `${JSON.stringify({ summary, tests: [], projectErrors: errors, diagnostics }, null, 2)}\n`;
}
