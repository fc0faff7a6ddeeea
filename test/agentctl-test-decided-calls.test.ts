import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';

// `tool_calls` and `no_tool_calls` are about the calls the model makes in the step. A step that
// decides a paused run (approve, deny, answer) runs calls an earlier step made: the resume
// announces them again as it runs them (an agent tool's call and the calls inside it too), and they
// used to count as this step's calls, so `no_tool_calls: true` failed on a step where no model
// called anything.
const NESTED = `kind: agent
name: office
description: Hands the booking to the booker, an agent used as a tool
model: office-script
tools: [{ agent: booker }]
---
kind: model
name: office-script
provider: offline
model: script
script:
  - tool_calls: [{ id: call_booker, name: booker, arguments: { request: book monday } }]
  - text: The booker is done.
`;

const TESTS = `kind: test
name: approve-calls-nothing-new
agent: booker
turns:
  - user: book me in
    expect: { pending: [user_input], tool_calls: [{ name: user_input }] }
  - answer: { user_input: monday }
    expect:
      tool_calls: [{ name: stamp, args: { day: monday } }]
      pending: [stamp]
  - approve: [stamp]
    expect:
      no_tool_calls: true
      output: { equals: Booked for Monday. }
---
kind: test
name: nested-approve-calls-nothing-new
agent: office
turns:
  - user: book me in
    expect: { pending: [user_input] }
  - answer: { user_input: monday }
    expect: { pending: [stamp] }
  - approve: [stamp]
    expect:
      no_tool_calls: true
      output: { equals: The booker is done. }
---
kind: test
name: answer-step-shows-its-own-calls
agent: booker
turns:
  - user: book me in
    expect: { pending: [user_input] }
  - answer: { user_input: monday }
    expect: { no_tool_calls: true, pending: [stamp] }
`;

afterAll(removeTempDirs);

describe('agentctl test: the calls of a step that decides a paused run', () => {
  it('are the calls the model made in it, not the decided calls the resume runs', async () => {
    const dir = await fixtureProject('agent-tests');
    await writeFile(join(dir, 'agents/office.yaml'), NESTED);
    await writeFile(join(dir, 'checks/decided.yaml'), TESTS);
    const result = await agentctl(['test', 'checks/decided.yaml', '--format', 'json'], {
      cwd: dir,
      env: { AGENT_TESTS_KEY: undefined },
    });
    const report = JSON.parse(result.stdout) as {
      tests: Array<{ name: string; status: string; failures: Array<Record<string, unknown>> }>;
    };
    const byName = Object.fromEntries(report.tests.map((t) => [t.name, t]));
    expect(byName['approve-calls-nothing-new'], result.stdout).toMatchObject({ status: 'passed' });
    expect(byName['nested-approve-calls-nothing-new'], result.stdout).toMatchObject({ status: 'passed' });
    // The answer step's own call (stamp, made after the answer) counts; the answered question does not.
    expect(byName['answer-step-shows-its-own-calls'].failures).toEqual([
      expect.objectContaining({
        turn: 2,
        expectation: 'no_tool_calls',
        actual: ['stamp({"day":"monday"})'],
      }),
    ]);
    expect(result.code).toBe(1);
  });
});
