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
