import {
  agentReach,
  compileProject,
  type DataPath,
  formatDiagnostic,
  inRunCodeScope,
  type LoadedProject,
  normaliseTest,
  type ProviderWrapper,
  type Registry,
  runCodeInFlight,
  type SourceRange,
  type SpecEntry,
  type TestDefinition,
  type TestSpec,
  type TestStep,
} from '@agentctl/config';
import {
  type Agent,
  AgentError,
  type AgentEvent,
  type ApprovalDecision,
  deadline,
  InMemorySessionStore,
  type InvocationResult,
  isAgentError,
  PausedSessionError,
  type PendingApproval,
  Runner,
  UsageError,
} from '@agentctl/core';
import { inAgent } from '../../agent-path-text.js';
import { invocationOutcome } from '../../invocation-outcome.js';
import { traceSecrets } from '../../tracing.js';
import { checkExpectations, expectationName } from './check-expectations.js';
import { judgeEntry, judgeStep } from './judge.js';
import { type StepOutcome, unresolvedCalls } from './step-outcome.js';
import type { Failure, TestResult } from './test-result.js';

/** What every test of a run shares. */
export interface TestContext {
  project: LoadedProject;
  registry: Registry;
  env: Record<string, string | undefined>;
  /** Milliseconds a test (every step and judge) may take when it sets no `timeout:` of its own. */
  testTimeout: number;
  /** Wraps the providers of this test (`--update` records real models' calls). */
  wrapProvider?: (test: string) => ProviderWrapper | undefined;
}

/**
 * Runs one `kind: test` document: its agent tree compiled afresh (so scripted models start from
 * their first turn), one in-memory session, each step through the Runner, then its expectations.
 */
export async function runTest(entry: SpecEntry<TestSpec>, context: TestContext): Promise<TestResult> {
  const started = performance.now();
  const spec = normaliseTest(entry.spec);
  const result = (
    partial: Pick<TestResult, 'status' | 'failures' | 'error' | 'stepError' | 'expectedError'>,
  ): TestResult => ({
    name: entry.name,
    file: entry.file,
    range: entry.range,
    ...partial,
    duration: Math.round(performance.now() - started),
  });
  const { project } = context;
  const judges = new Map<number, string>();
  const specs = { ...project.specs, agent: new Map(project.specs.agent) };
  spec.turns.forEach((turn, i) => {
    if (!turn.expect.judge) return;
    let name = `agentctl_judge_${i}`;
    while (specs.agent.has(name)) name = `${name}_`;
    judges.set(i, name);
    specs.agent.set(name, judgeEntry(entry, i, turn.expect.judge.model, name));
  });
  const { runtime, diagnostics } = await compileProject(
    { ...project, specs },
    {
      registry: context.registry,
      env: context.env,
      agents: [spec.agent, ...judges.values()],
      agentModels: agentModels(project, spec),
      wrapProvider: context.wrapProvider?.(entry.name),
      // A model that would be asked without its key fails the test here, at the model's line,
      // rather than as a provider error in every step.
      requireKeys: true,
      keyHint: 'give the model a `cassette:` to replay, or the test `model: offline/echo`',
    },
  );
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!runtime || errors.length > 0) {
    await runtime?.dispose();
    const message = errors.map(formatDiagnostic).join('\n') || 'the project could not be compiled';
    return result({ status: 'error', failures: [], error: { message, range: entry.locate(['agent']) } });
  }
  traceSecrets(runtime);
  // The whole test's time: what its runs wait on when it runs out is named (a middleware whose
  // promise never settles, a tool, a model), and the test fails there while the others go on.
  const timeoutMs = spec.timeoutMs ?? context.testTimeout;
  const scope = {};
  // A module tool looping without a break holds the thread this deadline's timer needs: the
  // watchdog ends the command at it (the tool's own timeout may be a minute or more away).
  const ends = {
    at: Date.now() + timeoutMs,
    what: `the ${seconds(timeoutMs)} timeout of test \`${entry.name}\``,
  };
  let waitedOn: string[] = [];
  const limit = deadline(undefined, timeoutMs, () => {
    waitedOn = runCodeInFlight(scope);
    return new AgentError(`the test did not finish within ${seconds(timeoutMs)}`, 'TIMEOUT');
  });
  try {
    const agent = runtime.agents.get(spec.agent) as Agent;
    const store = new InMemorySessionStore();
    const runner = new Runner({ agent, store });
    const sessionId = `test-${entry.name}`;
    // One user for the whole conversation, so `user:` state (the memory tool's notes) carries from
    // step to step; `app:` and `user:` keys of the starting state go where the Runner reads them.
    const userId = `test-${entry.name}`;
    await seedScopedState(store, spec.state ?? {}, userId);
    const failures: Failure[] = [];
    let stepError: string | undefined;
    let expectedError: string | undefined;
    let last: InvocationResult | undefined;
    // The calls the last step left waiting: a decision step's resume announces them again.
    let waitingCalls = new Set<string>();
    for (const [i, turn] of spec.turns.entries()) {
      const at = (path: DataPath, options?: { key?: boolean }) =>
        entry.locate(['turns', i, ...path], options);
      let decisions: ApprovalDecision[] = [];
      if (turn.user === undefined) {
        const decided = decide(turn, last, i, at);
        failures.push(...decided.failures);
        if (decided.failures.length > 0) continue;
        decisions = decided.decisions;
      }
      const stepRun = inRunCodeScope(
        scope,
        () =>
          step(runner, {
            input: turn.user,
            decisions,
            sessionId,
            userId,
            state: i === 0 ? spec.state : undefined,
            signal: limit.signal,
          }),
        ends,
      );
      const stepKey = turn.user === undefined ? decisionKey(turn) : 'user';
      const outcome = await limit.race(stepRun).catch((error: unknown) => {
        if (limit.expired) return undefined;
        // The Runner refused the step as written (a message to a paused run, a question approved):
        // a mistake of this step, reported at it, while the steps after it still run.
        if (error instanceof UsageError) return error;
        throw error;
      });
      if (outcome instanceof UsageError) {
        failures.push(refusedStep(outcome, i, last, stepKey, at([stepKey])));
        continue;
      }
      if (!outcome) {
        // Its recording (`--update`) stops short, as after a provider that failed halfway.
        stepError ??= 'TIMEOUT';
        failures.push(outOfTime(i, timeoutMs, waitedOn, at([stepKey])));
        break;
      }
      last = outcome.result;
      if (turn.user === undefined) outcome.resumed = waitingCalls;
      waitingCalls = unresolvedCalls(outcome);
      const expect = turn.expect;
      if (outcome.error && expect.error !== undefined) expectedError ??= outcome.error.code;
      if (outcome.error && expect.error === undefined) {
        stepError ??= outcome.error.code;
        failures.push({
          turn: i,
          expectation: 'error',
          message: 'the step failed',
          expected: 'no error',
          actual: `${outcome.error.code}${inAgent(outcome.error.agentPath)}: ${outcome.error.message}`,
          range: at([stepKey]),
        });
      }
      const waiting = outcome.result?.status === 'paused' ? (outcome.result.pending ?? []) : [];
      if (waiting.length > 0 && expect.pending === undefined) {
        // Its calls never ran: a test that ends here would pass on what the model only asked for.
        failures.push({
          turn: i,
          expectation: 'pending',
          message: `the step paused for a decision no \`pending:\` expected: add \`pending: [${waiting[0]?.call.name}]\` and decide in a next step`,
          expected: 'no pause',
          actual: waiting.map((p) => `${p.call.name} (${p.call.id})`),
          range: at([stepKey]),
        });
      }
      const locateExpect = (path: DataPath, options?: { key?: boolean }) => at(['expect', ...path], options);
      failures.push(...(await checkExpectations(expect, outcome, i, locateExpect)));
      const judgeAgent = runtime.agents.get(judges.get(i) ?? '');
      if (expect.judge && (!outcome.result || waiting.length > 0)) {
        // A judge asked for that never reads an answer would pass every step that fails, or
        // stops to ask (its answer is "" until a next step decides).
        failures.push({
          turn: i,
          expectation: 'judge',
          message:
            waiting.length > 0
              ? 'the step gave no answer to judge: the run paused for a decision; judge the step that answers after it'
              : 'the step gave no answer to judge',
          expected: expect.judge.criteria,
          actual: outcome.error
            ? `${outcome.error.code}: ${outcome.error.message}`
            : waiting.length > 0
              ? `paused on ${waiting.map((p) => `${p.call.name} (${p.call.id})`).join(', ')}`
              : 'no answer',
          range: locateExpect(['judge', 'criteria']),
        });
      } else if (expect.judge && judgeAgent && outcome.result) {
        const { judge } = expect;
        const answer = outcome.result.output;
        const judged = inRunCodeScope(
          scope,
          () =>
            judgeStep(judgeAgent, judge, turn.user, answer, {
              turn: i,
              signal: limit.signal,
              range: locateExpect(['judge', 'criteria']),
            }),
          ends,
        );
        const failure = await limit.race(judged).catch((error: unknown) => {
          if (!limit.expired) throw error;
          stepError ??= 'TIMEOUT';
          return outOfTime(i, timeoutMs, waitedOn, locateExpect(['judge', 'criteria']), 'judge');
        });
        if (failure) failures.push(failure);
        if (limit.expired) break;
      }
    }
    // In the order they are written, so a report reads down the file.
    failures.sort((a, b) => a.range.line - b.range.line || a.range.col - b.range.col);
    return result({ status: failures.length > 0 ? 'failed' : 'passed', failures, stepError, expectedError });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return result({ status: 'error', failures: [], error: { message, range: entry.range } });
  } finally {
    limit.dispose();
    // A run still waiting (out of time) holds MCP servers and tools' processes: they go now.
    await runtime.dispose();
  }
}

// The failure of a test out of time, at the step (or judge) it was on, naming what that waited on.
function outOfTime(
  turn: number,
  timeoutMs: number,
  waitedOn: readonly string[],
  range: SourceRange,
  expectation = 'timeout',
): Failure {
  const on = waitedOn.length > 0 ? waitedOn.join(', ') : 'the step';
  return {
    turn,
    expectation,
    message: `the test did not finish within its timeout of ${seconds(timeoutMs)}: it still waited on ${on}; raise \`timeout:\` (or --timeout) if it needs longer`,
    expected: `done within ${seconds(timeoutMs)}`,
    actual: waitedOn.length > 0 ? waitedOn : 'still running',
    range,
  };
}

// A step the Runner refused before running it. A user message to a paused run is told in the test's
// terms (the step that decides), not the Runner's (resume with approve or deny).
function refusedStep(
  error: UsageError,
  turn: number,
  last: InvocationResult | undefined,
  key: string,
  range: SourceRange,
): Failure {
  const pending = last?.status === 'paused' ? (last.pending ?? []) : [];
  if (error instanceof PausedSessionError && pending.length > 0) {
    const first = pending[0] as PendingApproval;
    const name = first.call.name;
    const decide =
      first.kind === 'input'
        ? `\`answer: { ${name}: ... }\` or \`deny: [${name}]\``
        : `\`approve: [${name}]\` or \`deny: [${name}]\``;
    const waiting = pending.map((p) => `${p.call.name} (${p.call.id})`);
    return {
      turn,
      expectation: key,
      message: `the run is paused on ${waiting.join(', ')}: no user message is taken until it is decided; decide in a step before this one (${decide})`,
      expected: 'a run not paused',
      actual: waiting,
      range,
    };
  }
  return {
    turn,
    expectation: key,
    message: `the run refused the step: ${error.message}`,
    range,
  };
}

// 60000 -> "60 s", 1500 -> "1.5 s", 250 -> "250 ms".
function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

// `model: X` is every agent of the tree; as a map it is agent by agent. Judges keep their own.
function agentModels(project: LoadedProject, spec: TestDefinition): ReadonlyMap<string, string> | undefined {
  if (spec.model === undefined) return undefined;
  if (typeof spec.model !== 'string') return new Map(Object.entries(spec.model));
  const model = spec.model;
  const reached = [...agentReach(project, spec.agent)].filter((entry) => entry.kind === 'agent');
  return new Map(reached.map((entry) => [entry.name, model]));
}

// Where a decision step is written: its first decision key.
function decisionKey(turn: TestStep): string {
  return turn.approve.length > 0 ? 'approve' : turn.deny.length > 0 ? 'deny' : 'answer';
}

// The decisions of a step that resumes a paused run; a call named that is not pending fails it.
function decide(
  turn: TestStep,
  last: InvocationResult | undefined,
  i: number,
  at: (path: DataPath, options?: { key?: boolean }) => ReturnType<SpecEntry['locate']>,
): { decisions: ApprovalDecision[]; failures: Failure[] } {
  const pending = last?.status === 'paused' ? (last.pending ?? []) : [];
  const decisions: ApprovalDecision[] = [];
  const failures: Failure[] = [];
  const pick = (ref: string, path: DataPath, make: (callId: string) => ApprovalDecision) => {
    const calls = pending.filter((p) => p.call.id === ref || p.call.name === ref);
    if (calls.length === 0)
      failures.push({
        turn: i,
        expectation: expectationName(path),
        message: `no pending call of ${ref} to decide on`,
        expected: ref,
        actual:
          pending.length > 0 ? pending.map((p) => `${p.call.name} (${p.call.id})`) : 'the run is not paused',
        range: at(path),
      });
    for (const p of calls) decisions.push(make(p.call.id));
  };
  turn.approve.forEach((ref, j) => {
    pick(ref, ['approve', j], (callId) => ({ callId, approve: true }));
  });
  turn.deny.forEach((ref, j) => {
    pick(ref, ['deny', j], (callId) => ({ callId, approve: false, reason: turn.reason }));
  });
  for (const [ref, text] of Object.entries(turn.answer))
    pick(ref, ['answer', ref], (callId) => ({ callId, approve: true, input: text }));
  return { decisions, failures };
}

// The Runner loads `app:` and `user:` keys from the store's shared scopes over the session's own,
// so a test's starting state puts them there, or they would be dropped before the first step.
async function seedScopedState(
  store: InMemorySessionStore,
  state: Record<string, unknown>,
  userId: string,
): Promise<void> {
  const scoped = (prefix: string) =>
    Object.fromEntries(Object.entries(state).filter(([k]) => k.startsWith(prefix)));
  const app = scoped('app:');
  const user = scoped('user:');
  if (Object.keys(app).length > 0) await store.updateScopedState('app', app);
  if (Object.keys(user).length > 0) await store.updateScopedState(`user:${userId}`, user);
}

async function step(
  runner: Runner,
  what: {
    input?: string;
    decisions: ApprovalDecision[];
    sessionId: string;
    userId: string;
    state?: Record<string, unknown>;
    signal: AbortSignal;
  },
): Promise<StepOutcome> {
  const events: AgentEvent[] = [];
  const common = {
    sessionId: what.sessionId,
    userId: what.userId,
    signal: what.signal,
    onEvent: (e: AgentEvent) => events.push(e),
  };
  const run =
    what.input !== undefined
      ? runner.run({ ...common, input: what.input, state: what.state })
      : runner.resume({ ...common, decisions: what.decisions });
  const result = await invocationOutcome(run);
  if (isAgentError(result))
    return { events, error: { code: result.code, message: result.message, agentPath: result.agentPath } };
  if (result instanceof Error) throw result;
  return { events, result: result as InvocationResult };
}
