import { styles } from '../../io.js';
import type { Summary } from './summary.js';
import type { Failure, TestResult } from './test-result.js';

const show = (value: unknown) =>
  typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value, null, 0);

/**
 * Results for a person: a line per test, and under a test that failed each unmet expectation at
 * its `file:line:col`, with what was expected and what happened.
 */
export function formatText(results: readonly TestResult[], summary: Summary, color: boolean): string {
  const s = styles(color);
  const lines: string[] = [];
  for (const r of results) {
    const where = `${r.file}:${r.range.line}`;
    if (r.status === 'passed') {
      lines.push(`${s.green('✓')} ${r.name} ${s.dim(`(${r.duration} ms)`)}`);
      continue;
    }
    const mark = r.status === 'failed' ? s.red('✗') : s.red('!');
    lines.push(`${mark} ${s.bold(r.name)} ${s.dim(`${where} (${r.duration} ms)`)}`);
    for (const f of r.failures) lines.push(...failureLines(r, f, s));
    if (r.error) {
      lines.push(`    ${r.file}:${r.error.range.line}:${r.error.range.col}: error: could not run the test`);
      for (const line of r.error.message.split('\n')) lines.push(`      ${line}`);
    }
  }
  const parts = [s.green(`${summary.passed} passed`)];
  if (summary.failed) parts.push(s.red(`${summary.failed} failed`));
  if (summary.errors) parts.push(s.red(`${summary.errors} error(s)`));
  lines.push('', `${summary.total} test(s): ${parts.join(', ')} ${s.dim(`(${summary.duration} ms)`)}`);
  return `${lines.join('\n')}\n`;
}

function failureLines(r: TestResult, f: Failure, s: ReturnType<typeof styles>): string[] {
  const out = [
    `    ${r.file}:${f.range.line}:${f.range.col}: turn ${f.turn + 1}, ${f.expectation}: ${f.message}`,
  ];
  if (f.expected !== undefined) out.push(`      ${s.green('expected:')} ${show(f.expected)}`);
  if (f.actual !== undefined) out.push(`      ${s.red('actual:  ')} ${show(f.actual)}`);
  return out;
}
