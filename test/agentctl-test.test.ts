import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, exampleProject, FIXTURES, fixtureProject, REPO, removeTempDirs } from './support/cli.js';

// `agentctl test` through the real CLI: the repository's own example tests, then a fixture project
// whose tests pass, fail and cannot run, and whose tests live where `tests:` says (checks/).
const PROJECT = `${FIXTURES}/projects/agent-tests`;
const INVALID = `${FIXTURES}/projects/agent-tests-invalid`;
const test = (args: string[], cwd = PROJECT, env: Record<string, string | undefined> = {}) =>
  agentctl(['test', ...args], {
    cwd,
    env: { AGENT_TESTS_KEY: undefined, OPENAI_API_KEY: undefined, ...env },
  });

afterAll(removeTempDirs);

describe('agentctl test', () => {
  it("passes the repository's example tests, offline, with exit 0", async () => {
    const result = await test([], REPO);
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    for (const name of [
      'hello-echoes',
      'triage-routes-billing',
      'housekeeper-asks-before-writing',
      'librarian-reads-the-docs',
      'recorded-replays-its-cassette',
      'billing-answer-is-judged',
      'drafting-loop-ends-on-approval',
      'research-writes-from-both-sources',
      'toolsmith-calls-each-tool',
      'support-answers-refunds',
    ])
      expect(result.stdout).toContain(`✓ ${name}`);
    expect(result.stdout).toMatch(/(\d+) test\(s\): \1 passed/);
  });

  it('exit 0 when every selected test passes: transfers, ordered calls, errors expected, overrides, answer and approve steps', async () => {
    const result = await test(['checks/pass.yaml']);
    expect(result.stdout).toContain('5 test(s): 5 passed');
    expect(result.code).toBe(0);
  });

  it('exit 1 with each failed expectation at its file:line:col, expected and actual', async () => {
    const result = await test(['checks/fail.yaml']);
    expect(result.code).toBe(1);
    const out = result.stdout;
    expect(out).toContain('✗ wrong-expectations checks/fail.yaml:2');
    expect(out).toContain('checks/fail.yaml:7:17: turn 1, transfer: expected a transfer to desk');
    expect(out).toMatch(/expected: "desk"\n\s+actual: +\["refunds"\]/);
    expect(out).toContain(
      'checks/fail.yaml:8:20: turn 1, tool_calls[0]: expected a call of lookup with {"customer":"globex"}',
    );
    expect(out).toContain('actual:   ["lookup({\\"customer\\":\\"acme\\",\\"detail\\":\\"full\\"})"');
    expect(out).toContain(
      'checks/fail.yaml:9:27: turn 1, output.contains: expected the answer to contain "cheque"',
    );
    expect(out).toContain('actual:   "Your refund of 20 EUR is on its way."');
    expect(out).toMatch(
      /checks\/fail\.yaml:10:22: turn 1, max\.tokens: expected at most 10 tokens\n\s+expected: 10\n\s+actual: +\d+/,
    );
    // The judge (a scripted model) fails the answer with its reason.
    expect(out).toContain(
      'checks/fail.yaml:18:47: turn 1, judge: the judge failed the answer: The answer never says when the refund arrives.',
    );
    // An error no expectation asked for fails the step at its user message.
    expect(out).toContain('checks/fail.yaml:24:11: turn 1, error: the step failed');
    expect(out).toContain(
      'actual:   "MAX_ITERATIONS_EXCEEDED: agent looper reached its limit of 2 model calls"',
    );
    // A decision for a call that is not pending fails the step that makes it.
    expect(out).toContain('checks/fail.yaml:33:24: turn 1, pending: expected the step to pause on stamp');
    expect(out).toContain(
      'checks/fail.yaml:34:15: turn 2, approve[0]: no pending call of stamp to decide on',
    );
    expect(out).toContain('actual:   ["user_input (call_1_0)"]');
    expect(out).toContain('4 test(s): 0 passed, 4 failed');
  });

  it('a judge that gives no verdict fails the step, saying what it answered', async () => {
    const dir = await fixtureProject('agent-tests');
    await appendFile(
      join(dir, 'checks/pass.yaml'),
      `---
kind: test
name: vague-judge
agent: refunds
turns:
  - user: where is my refund?
    expect:
      judge: { model: vague, criteria: Says when the refund arrives. }
---
kind: model
name: vague
provider: offline
model: script
script: [{ fallback: true, text: I suppose it is fine. }]
`,
    );
    const result = await test(['vague-judge'], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /checks\/pass\.yaml:\d+:\d+: turn 1, judge: the judge failed the answer: the judge gave no verdict: OUTPUT_PARSE_ERROR: /,
    );
  });

  it('an expectation that would check nothing fails: a judge of a step with no answer, a pause no `pending:` expects, an empty `contains` or `state`', async () => {
    const dir = await fixtureProject('agent-tests');
    await appendFile(
      join(dir, 'checks/pass.yaml'),
      `---
kind: test
name: judged-error
agent: looper
turns:
  - user: look again
    expect:
      error: MAX_ITERATIONS_EXCEEDED
      judge: { model: strict-judge, criteria: Says when the refund arrives. }
`,
    );
    const judged = await test(['judged-error'], dir);
    expect(judged.code).toBe(1);
    expect(judged.stdout).toMatch(
      /checks\/pass\.yaml:\d+:\d+: turn 1, judge: the step gave no answer to judge\n\s+expected: "Says when the refund arrives\."\n\s+actual: +"MAX_ITERATIONS_EXCEEDED: /,
    );
    // A step that pauses with no `pending:` expecting it: the call it shows never ran.
    await appendFile(
      join(dir, 'checks/pass.yaml'),
      `---
kind: test
name: paused-unsaid
agent: booker
turns:
  - user: book me in
    expect: { tool_calls: [{ name: user_input }] }
`,
    );
    const paused = await test(['paused-unsaid'], dir);
    expect(paused.code).toBe(1);
    expect(paused.stdout).toMatch(
      /checks\/pass\.yaml:\d+:11: turn 1, pending: the step paused for a decision no `pending:` expected: add `pending: \[user_input\]` and decide in a next step\n\s+expected: "no pause"\n\s+actual: +\["user_input \(call_1_0\)"\]/,
    );
    // A judge of a step that paused reads no answer (it is "" until a next step decides): an
    // easy judge would pass it.
    await appendFile(
      join(dir, 'checks/pass.yaml'),
      `---
kind: test
name: judges-a-pause
agent: booker
turns:
  - user: book me in
    expect:
      pending: [user_input]
      judge: { model: easy-judge, criteria: Books a day. }
---
kind: model
name: easy-judge
provider: offline
model: script
script: [{ fallback: true, text: '{"pass": true, "reason": "fine"}' }]
`,
    );
    const pausedJudge = await test(['judges-a-pause'], dir);
    expect(pausedJudge.code).toBe(1);
    expect(pausedJudge.stdout).toMatch(
      /checks\/pass\.yaml:\d+:\d+: turn 1, judge: the step gave no answer to judge: the run paused for a decision; judge the step that answers after it\n\s+expected: "Books a day\."\n\s+actual: +"paused on user_input \(call_1_0\)"/,
    );
    await appendFile(
      join(dir, 'checks/pass.yaml'),
      `---
kind: test
name: checks-nothing
agent: refunds
turns:
  - user: where is my refund?
    expect: { output: { contains: "" }, state: {} }
`,
    );
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/checks\/pass\.yaml:\d+:\d+: error: `contains` must not be empty/);
    expect(validate.stdout).toMatch(/checks\/pass\.yaml:\d+:\d+: error: `state` needs at least 1 key/);
  });

  it('app: and user: keys of the starting state reach the run, and user: state carries from step to step', async () => {
    const dir = await fixtureProject('agent-tests');
    await appendFile(
      join(dir, 'checks/pass.yaml'),
      `---
kind: test
name: remembers-for-the-user
agent: noter
state:
  app:plan: gold
  user:memories: [{ id: 1, note: likes tea, time: "2026-01-01T00:00:00Z" }]
turns:
  - user: remember that I drink coffee
    expect:
      state:
        app:plan: gold
        user:memories: [{ note: likes tea }, { note: drinks coffee }]
  - user: what do you know?
    expect:
      state: { "user:memories": [{ id: 1 }, { id: 2 }] }
---
kind: agent
name: noter
model: noter-script
tools: [{ builtin: memory }]
---
kind: model
name: noter-script
provider: offline
model: script
script:
  - tool_calls: [{ name: memory, arguments: { action: remember, note: drinks coffee } }]
  - text: Noted.
  - tool_calls: [{ name: memory, arguments: { action: recall } }]
  - text: You like tea and drink coffee.
`,
    );
    const result = await test(['remembers-for-the-user'], dir);
    expect(result.stdout, result.stderr).toContain('✓ remembers-for-the-user');
    expect(result.code).toBe(0);
  });

  it('a test that cannot run is an error naming why, exit 1', async () => {
    const result = await test(['cannot-compile']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('! cannot-compile checks/error.yaml:2');
    expect(result.stdout).toContain('checks/error.yaml:3:8: error: could not run the test');
    expect(result.stdout).toContain('environment variable AGENT_TESTS_KEY is not set');
    expect(result.stdout).toContain('1 test(s): 0 passed, 1 error(s)');
    // With the key set the same test runs and passes.
    const keyed = await test(['cannot-compile'], PROJECT, { AGENT_TESTS_KEY: 'k' });
    expect(keyed.code).toBe(0);
  });

  it('selects tests by name, file and folder; an unknown one is a usage error (exit 2)', async () => {
    const byName = await test(['per-agent-model', 'refund-is-routed']);
    expect(byName.stdout).toContain('2 test(s): 2 passed');
    expect(byName.stdout.indexOf('refund-is-routed')).toBeLessThan(byName.stdout.indexOf('per-agent-model'));
    const byFolder = await test(['checks']);
    expect(byFolder.stdout).toContain('10 test(s): 5 passed, 4 failed, 1 error(s)');
    expect(byFolder.code).toBe(1);
    const unknown = await test(['refund-is-routd']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no test named or found at "refund-is-routd"; did you mean `refund-is-routed`?',
    );
    const format = await test(['--format', 'tap']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("argument 'tap' is invalid");
  });

  it('a file or folder given that is there but holds no test says why, not that it was not found (exit 2)', async () => {
    const dir = await fixtureProject('agent-tests');
    await mkdir(join(dir, 'other'));
    await writeFile(
      join(dir, 'other/more.yaml'),
      'kind: test\nname: elsewhere\nagent: desk\nturns:\n  - user: hi\n',
    );
    const cases: Array<[string, string]> = [
      [
        'other/more.yaml',
        'agentctl: other/more.yaml is not a test file of the project: tests are read from checks/**/*.yaml; add it to `tests:` in agentctl.yaml',
      ],
      ['other', 'agentctl: no test file under other: tests are read from checks/**/*.yaml'],
      ['agents/desk.yaml', 'agentctl: agents/desk.yaml holds no `kind: test` document'],
    ];
    for (const [target, message] of cases) {
      const result = await test([target], dir);
      expect(result.code, target).toBe(2);
      expect(result.stderr, target).toContain(message);
    }
  });

  it("a project without tests says where it looked (exit 1); -C runs another folder's tests", async () => {
    const none = await test([], await exampleProject());
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('agentctl: no `kind: test` documents in tests/**/*.yaml');
    const elsewhere = await agentctl(['-C', PROJECT, 'test', 'refund-is-routed'], { cwd: REPO });
    expect(elsewhere.stdout).toContain('1 test(s): 1 passed');
    expect(elsewhere.code).toBe(0);
  });

  it('json: one document with every test, its status and each failure with line and col', async () => {
    const result = await test(['checks', '--format', 'json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      summary: { total: number; passed: number; failed: number; errors: number };
      tests: Array<{
        name: string;
        status: string;
        line: number;
        failures: Array<Record<string, unknown>>;
        error?: { message: string };
      }>;
    };
    expect(report.summary).toMatchObject({ total: 10, passed: 5, failed: 4, errors: 1 });
    const byName = new Map(report.tests.map((t) => [t.name, t]));
    expect(byName.get('refund-is-routed')?.status).toBe('passed');
    expect(byName.get('cannot-compile')).toMatchObject({ status: 'error', line: 2 });
    expect(byName.get('cannot-compile')?.error?.message).toContain('AGENT_TESTS_KEY');
    expect(byName.get('wrong-expectations')?.failures[0]).toEqual({
      turn: 1,
      expectation: 'transfer',
      message: 'expected a transfer to desk',
      expected: 'desk',
      actual: ['refunds'],
      line: 7,
      col: 17,
    });
  });

  it('validate reports broken test documents at file:line:col, and test runs none of them', async () => {
    const validate = await agentctl(['validate'], { cwd: INVALID });
    expect(validate.code).toBe(1);
    const lines = validate.stdout;
    expect(lines).toContain(
      'tests/broken.yaml:3:8: error: agent `triag` is not defined; did you mean `triage`? [unresolved-reference]',
    );
    expect(lines).toContain('tests/broken.yaml:13:26: error: not a valid regular expression');
    expect(lines).toContain(
      'tests/broken.yaml:21:7: error: unknown key `outptu` in `expect`; did you mean `output`? [unknown-key]',
    );
    expect(lines).toContain('tests/broken.yaml:26:18: error: model `fastt` is not defined');
    expect(lines).toContain('tests/broken.yaml:30:17: error: agent `billing` is not defined');
    expect(lines).toContain('tests/broken.yaml:31:23: error: provider `nope` is not available');
    const run = await test([], INVALID);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('6 error(s) in the project; nothing was run');
    // A run of an agent does not read the tests: their errors do not stop it.
    const agent = await agentctl(['run', 'triage', 'hi'], { cwd: INVALID });
    expect(agent.code).toBe(0);
  });
});
