import type { Diagnostic } from '@agentctl/config';
import type { Summary } from './summary.js';
import type { TestResult } from './test-result.js';

// XML 1.0 allows no control characters but tab, CR and LF, even escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

const xml = (text: string) =>
  text
    .replace(CONTROL, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');

const seconds = (ms: number) => (ms / 1000).toFixed(3);

const HEADER = '<?xml version="1.0" encoding="UTF-8"?>';

// The opening tags of the report and of one suite, with their counts.
const testsuites = (tests: number, failures: number, errors: number, ms: number) =>
  `<testsuites name="agentctl test" tests="${tests}" failures="${failures}" errors="${errors}" time="${seconds(ms)}">`;

const testsuite = (
  name: string,
  id: number,
  tests: number,
  failures: number,
  errors: number,
  ms: number,
  at: Date,
) =>
  `  <testsuite name="${xml(name)}" id="${id}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(ms)}" timestamp="${at.toISOString().slice(0, 19)}" hostname="localhost">`;

/**
 * Results as JUnit XML, the report CI systems read: a `<testsuite>` per test file, a `<testcase>`
 * per test with `file` and `line`, a `<failure>` per unmet expectation and an `<error>` for a test
 * that could not run.
 */
export function formatJunit(results: readonly TestResult[], summary: Summary, timestamp: Date): string {
  const files = [...new Set(results.map((r) => r.file))];
  const out = [HEADER, testsuites(summary.total, summary.failed, summary.errors, summary.duration)];
  files.forEach((file, id) => {
    const cases = results.filter((r) => r.file === file);
    const count = (status: TestResult['status']) => cases.filter((r) => r.status === status).length;
    const time = cases.reduce((sum, r) => sum + r.duration, 0);
    out.push(testsuite(file, id, cases.length, count('failed'), count('error'), time, timestamp));
    for (const r of cases) {
      const attrs = `name="${xml(r.name)}" classname="${xml(file)}" file="${xml(file)}" line="${r.range.line}" time="${seconds(r.duration)}"`;
      if (r.status === 'passed') {
        out.push(`    <testcase ${attrs}/>`);
        continue;
      }
      out.push(`    <testcase ${attrs}>`);
      for (const f of r.failures) {
        const detail = [
          `${file}:${f.range.line}:${f.range.col}: turn ${f.turn + 1}, ${f.expectation}: ${f.message}`,
          ...(f.expected === undefined ? [] : [`expected: ${JSON.stringify(f.expected)}`]),
          ...(f.actual === undefined ? [] : [`actual: ${JSON.stringify(f.actual)}`]),
        ].join('\n');
        out.push(
          `      <failure message="${xml(`${f.expectation}: ${f.message}`)}" type="${xml(f.expectation)}">${xml(detail)}</failure>`,
        );
      }
      if (r.error)
        out.push(
          `      <error message="${xml(r.error.message.split('\n')[0] ?? '')}" type="error">${xml(`${file}:${r.error.range.line}:${r.error.range.col}: ${r.error.message}`)}</error>`,
        );
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  });
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * A project with errors, where no test could run, as JUnit XML: one `<testcase>` with an `<error>`
 * per error, at its file and line, so that a CI system shows why instead of an empty report.
 */
export function formatJunitProjectErrors(diagnostics: readonly Diagnostic[], timestamp: Date): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const out = [
    HEADER,
    testsuites(errors.length, 0, errors.length, 0),
    testsuite('project', 0, errors.length, 0, errors.length, 0, timestamp),
  ];
  for (const d of errors) {
    const where = `${d.file}:${d.line}:${d.col}`;
    out.push(
      `    <testcase name="${xml(`${where} ${d.rule}`)}" classname="${xml(d.file)}" file="${xml(d.file)}" line="${d.line}" time="0.000">`,
      `      <error message="${xml(d.message.split('\n')[0] ?? '')}" type="${xml(d.rule)}">${xml(`${where}: ${d.message}`)}</error>`,
      '    </testcase>',
    );
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}
