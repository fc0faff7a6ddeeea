import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type Diagnostic, watchRunCode } from '@agentctl/config';
import { parseDuration } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { defaultRegistry } from '../../default-registry.js';
import { type Io, styles } from '../../io.js';
import { openProject } from '../../project.js';
import { formatGithub as formatAnnotations } from '../validate/format-github.js';
import { CassetteUpdates } from './cassette-updates.js';
import { formatGithub } from './format-github.js';
import { formatJson, formatJsonProjectErrors } from './format-json.js';
import { formatJunit, formatJunitProjectErrors } from './format-junit.js';
import { formatText } from './format-text.js';
import { runTest, type TestContext } from './run-test.js';
import { selectTests, testGlobs } from './select-tests.js';
import { resumeCommands, stopCommands } from './stop-commands.js';
import { summarise } from './summary.js';
import type { TestResult } from './test-result.js';

/** Options of `agentctl test`. */
export interface TestCommandOptions {
  /** Test names, test files or folders; none: every test. */
  targets?: string[];
  format?: 'text' | 'json' | 'junit' | 'github';
  /** The same as `format: 'json'`. */
  json?: boolean;
  /** Record the calls of models that have a `cassette:` and their key set, into their cassettes. */
  update?: boolean;
  /** How long a test with no `timeout:` of its own may take (`30s`, `2m`); default 60 s. */
  timeout?: string;
  project?: string;
}

// A test (every step and judge) with no `timeout:` of its own may take this long: long enough for a
// real model's few turns, short enough that a stuck test does not hold CI for minutes.
const TEST_TIMEOUT_MS = 60_000;

/** `agentctl test`: runs `kind: test` documents in parallel; exit 0 all passed, 1 some did not. */
export async function testCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const options = raw as TestCommandOptions;
  const testTimeout = testTimeoutOf(options.timeout);
  const format = options.json
    ? 'json'
    : (options.format ?? (io.env.GITHUB_ACTIONS === 'true' ? 'github' : 'text'));
  // A report for programs: what the agents' module code prints goes to stderr, not into it.
  if (format === 'json' || format === 'junit') io.reserveStdout?.();
  const project = await openProject(raw, io, undefined, {
    tests: true,
    // A report a CI system reads says why no test ran, rather than being empty.
    report: (diagnostics, root) => {
      if (format !== 'text') io.stdout(renderProjectErrors(format, diagnostics, root, io));
    },
  });
  const tests = selectTests(project, options.targets ?? [], io.cwd);
  if (tests.length === 0) {
    throw new CliError(`no \`kind: test\` documents in ${testGlobs(project).join(', ')}`, EXIT.failed);
  }
  const updates = options.update ? new CassetteUpdates(project) : undefined;
  const context: TestContext = {
    project,
    registry: defaultRegistry(),
    env: io.env,
    testTimeout,
    wrapProvider: updates && ((test) => updates.wrapperFor(test)),
  };
  const started = performance.now();
  // On GitHub, what the tests' code prints as they run (a module tool logging what the model gave
  // it, an MCP server's stderr) is no workflow command either, as the report after it is not.
  const stopped = format === 'github' ? stopCommands() : undefined;
  if (stopped) io.stdout(stopped.line);
  // A tool that loops without yielding ends the command at its timeout, named, rather than hang CI.
  const unwatch = watchRunCode({ fatal: true });
  const results = await inParallel(tests, Math.max(2, availableParallelism()), (test) =>
    runTest(test, context),
  )
    .catch((error: unknown) => {
      if (stopped) io.stdout(resumeCommands(stopped.token));
      throw error;
    })
    .finally(unwatch);
  const summary = summarise(results, Math.round(performance.now() - started));
  let refused = false;
  if (updates) {
    const partial = tests.length < project.specs.test.size;
    const stepErrors = new Map(results.flatMap((r) => (r.stepError ? [[r.name, r.stepError] as const] : [])));
    const expectedErrors = new Map(
      results.flatMap((r) => (r.expectedError ? [[r.name, r.expectedError] as const] : [])),
    );
    const saved = await updates.save(
      tests.map((t) => t.name),
      partial,
      stepErrors,
      expectedErrors,
    );
    for (const line of saved.written) io.stderr(`${line}\n`);
    for (const line of saved.refused) io.stderr(`${styles(io.isTTY).red(`agentctl: ${line}`)}\n`);
    refused = saved.refused.length > 0;
    const warn = styles(io.isTTY).yellow;
    for (const [model, cassette] of updates.keyless)
      io.stderr(warn(`model ${model} has no API key: replayed ${cassette}, not updated\n`));
    for (const model of updates.uncassetted)
      io.stderr(
        warn(
          `model ${model} ran live and has no \`cassette:\` to record into; add one to replay it offline\n`,
        ),
      );
  }
  io.stdout(render(format, results, summary, project.root, io, stopped?.token ?? ''));
  return summary.passed === summary.total && !refused ? EXIT.ok : EXIT.failed;
}

// `--timeout`: a duration; 0 would fail every test before it starts, so it is bad usage.
function testTimeoutOf(value: string | undefined): number {
  if (value === undefined) return TEST_TIMEOUT_MS;
  let ms: number;
  try {
    ms = parseDuration(value, '--timeout');
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  if (ms <= 0)
    throw new CliError(
      '--timeout must be longer than 0 (every test would fail before it starts)',
      EXIT.usage,
    );
  return ms;
}

function render(
  format: NonNullable<TestCommandOptions['format']>,
  results: TestResult[],
  summary: ReturnType<typeof summarise>,
  root: string,
  io: Io,
  token: string,
): string {
  switch (format) {
    case 'json':
      return formatJson(results, summary);
    case 'junit':
      return formatJunit(results, summary, new Date());
    case 'github':
      return formatGithub(results, summary, root, resolve(io.cwd, io.env.GITHUB_WORKSPACE || '.'), token);
    default:
      return formatText(results, summary, io.isTTY);
  }
}

function renderProjectErrors(
  format: 'json' | 'junit' | 'github',
  diagnostics: readonly Diagnostic[],
  root: string,
  io: Io,
): string {
  switch (format) {
    case 'json':
      return formatJsonProjectErrors(diagnostics);
    case 'junit':
      return formatJunitProjectErrors(diagnostics, new Date());
    default:
      return formatAnnotations(diagnostics, root, resolve(io.cwd, io.env.GITHUB_WORKSPACE || '.'));
  }
}

// Tests run `limit` at a time; results keep the order of `items`.
async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
