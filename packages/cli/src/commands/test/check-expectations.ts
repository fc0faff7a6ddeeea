import type { DataPath, SourceRange, TestExpectations } from '@agentctl/config';
import { boundedRegExp, RegExpTimeoutError, schemaValidator } from '@agentctl/core';
import { inAgent } from '../../agent-path-text.js';
import { callsOf, type StepOutcome, usageOf } from './step-outcome.js';
import { subsetMatch } from './subset-match.js';
import type { Failure } from './test-result.js';

/** Where a path under a step's `expect` is written. */
export type Locate = (path: DataPath, options?: { key?: boolean }) => SourceRange;

/**
 * Checks one step's outcome against its `expect` (the judge aside: it needs a model). Every
 * expectation is checked, so one run reports all that failed.
 */
export async function checkExpectations(
  expect: TestExpectations,
  outcome: StepOutcome,
  turn: number,
  locate: Locate,
): Promise<Failure[]> {
  const failures: Failure[] = [];
  const fail = (
    path: DataPath,
    message: string,
    expected: unknown,
    actual: unknown,
    options?: { key?: boolean },
  ) =>
    failures.push({
      turn,
      expectation: expectationName(path),
      message,
      expected,
      actual,
      range: locate(path, options),
    });
  const { result, error } = outcome;
  if (expect.error !== undefined) {
    if (error?.code !== expect.error)
      fail(
        ['error'],
        `expected the step to fail with ${expect.error}`,
        expect.error,
        error
          ? `${error.code}${inAgent(error.agentPath)}: ${error.message}`
          : `no error (${result?.status ?? 'complete'})`,
      );
  }
  const calls = callsOf(outcome);
  if (expect.noToolCalls && calls.length > 0)
    fail(['no_tool_calls'], 'expected no tool call', [], calls.map(describeCall));
  if (expect.toolCalls) {
    let from = 0;
    expect.toolCalls.forEach((want, j) => {
      const at = calls.findIndex(
        (call, k) => k >= from && call.name === want.name && subsetMatch(want.args ?? {}, call.arguments),
      );
      if (at < 0) {
        fail(
          ['tool_calls', j],
          `expected a call of ${want.name}${want.args ? ` with ${JSON.stringify(want.args)}` : ''}${j > 0 ? ` after ${expect.toolCalls?.[j - 1]?.name}` : ''}`,
          { name: want.name, ...(want.args && { args: want.args }) },
          calls.map(describeCall),
        );
      } else from = at + 1;
    });
  }
  if (expect.transfer !== undefined) {
    const transfers = outcome.events.flatMap((e) => (e.type === 'transfer' ? [e.to] : []));
    if (!transfers.includes(expect.transfer))
      fail(
        ['transfer'],
        `expected a transfer to ${expect.transfer}`,
        expect.transfer,
        transfers.length ? transfers : 'no transfer',
      );
  }
  if (expect.max) {
    const used = usageOf(outcome);
    const { modelCalls: calls, tokens } = expect.max;
    if (calls !== undefined && used.modelCalls > calls)
      fail(['max', 'model_calls'], `expected at most ${calls} model call(s)`, calls, used.modelCalls);
    // A provider that reports no usage counts 0 (or a guess): a limit "met" on that is no check.
    if (tokens !== undefined && used.unreported > 0)
      fail(
        ['max', 'tokens'],
        `the model reported no token usage for ${used.unreported === used.modelCalls ? (used.modelCalls === 1 ? 'its call' : `any of its ${used.modelCalls} calls`) : `${used.unreported} of its ${used.modelCalls} calls`}, so the limit of ${tokens} tokens cannot be checked`,
        tokens,
        'no usage reported',
      );
    else if (tokens !== undefined && used.tokens > tokens)
      fail(['max', 'tokens'], `expected at most ${tokens} tokens`, tokens, used.tokens);
  }
  if (expect.pending) {
    const calls = result?.status === 'paused' ? (result.pending ?? []) : [];
    const pending = calls.map((p) => p.call.name);
    // By tool name or call id, as `approve:` and `deny:` name them.
    const missing = expect.pending.filter(
      (ref) => !calls.some((p) => p.call.name === ref || p.call.id === ref),
    );
    if (missing.length > 0)
      fail(['pending'], `expected the step to pause on ${missing.join(', ')}`, expect.pending, pending);
  }
  if (expect.state) {
    const state = result?.state ?? {};
    for (const [key, value] of Object.entries(expect.state)) {
      if (!Object.hasOwn(state, key) || !subsetMatch(value, state[key]))
        fail(
          ['state', key],
          `expected state.${key} to be ${JSON.stringify(value)}`,
          value,
          Object.hasOwn(state, key) ? state[key] : 'unset',
          { key: true },
        );
    }
  }
  if (expect.output) await checkOutput(expect.output, outcome, fail);
  return failures;
}

async function checkOutput(
  output: NonNullable<TestExpectations['output']>,
  outcome: StepOutcome,
  fail: (path: DataPath, message: string, expected: unknown, actual: unknown) => void,
): Promise<void> {
  const text = outcome.result?.output ?? '';
  // A run that stopped to ask has no answer yet: say what it waits for, not only that it is "".
  const waiting = outcome.result?.status === 'paused' ? (outcome.result.pending ?? []) : [];
  const paused =
    waiting.length > 0
      ? `, but the run paused on ${waiting.map((p) => `${p.call.name} (${p.call.id})`).join(', ')}: decide in a next step (\`approve: [${waiting[0].call.name}]\`, \`deny:\` or \`answer:\`)`
      : '';
  if (output.contains !== undefined && !text.includes(output.contains))
    fail(
      ['output', 'contains'],
      `expected the answer to contain ${JSON.stringify(output.contains)}${paused}`,
      output.contains,
      text,
    );
  if (output.equals !== undefined && text.trim() !== output.equals.trim())
    fail(['output', 'equals'], `expected the answer to equal the text given${paused}`, output.equals, text);
  if (output.matches !== undefined) {
    let matched: boolean | RegExpTimeoutError;
    try {
      matched = boundedRegExp(new RegExp(output.matches)).test(text);
    } catch (error) {
      if (!(error instanceof RegExpTimeoutError)) throw error;
      matched = error;
    }
    if (matched !== true)
      fail(
        ['output', 'matches'],
        matched === false ? `expected the answer to match /${output.matches}/${paused}` : matched.message,
        output.matches,
        text,
      );
  }
  if (output.schema !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      fail(
        ['output', 'schema'],
        'expected the answer to be JSON valid against the schema',
        output.schema,
        text,
      );
      return;
    }
    const check = (await schemaValidator(output.schema))(value);
    if (!check.ok)
      fail(
        ['output', 'schema'],
        `the answer is not valid against the schema: ${check.errors.join('; ')}`,
        output.schema,
        value,
      );
  }
}

/** How a path under a step is shown: `tool_calls[1]`, `output.contains`, `approve[0]`. */
export function expectationName(path: DataPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
}

function describeCall(call: { name: string; arguments: Record<string, unknown> }): string {
  return `${call.name}(${JSON.stringify(call.arguments)})`;
}
