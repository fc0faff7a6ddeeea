import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';

// A step the Runner refuses as written (a user message while the run waits for a decision, a
// question approved instead of answered) is the test's mistake at that step: it fails there, in the
// test's terms, and the steps after it still run. It used to end the whole test as "could not run"
// at its name, with the Runner's advice (`resume it with approve or deny`).
const REFUSED = `kind: test
name: message-while-paused
agent: booker
turns:
  - user: book me in
    expect: { pending: [user_input] }
  - user: monday please
  - answer: { user_input: monday }
    expect: { pending: [stamp] }
  - approve: [stamp]
    expect: { output: { equals: Booked for Monday. } }
---
kind: test
name: question-approved
agent: booker
turns:
  - user: book me in
    expect: { pending: [user_input] }
  - approve: [user_input]
  - answer: { user_input: monday }
    expect: { pending: [stamp] }
`;

afterAll(removeTempDirs);

describe('agentctl test: a step the run refuses', () => {
  it('fails at that step, says which decision to write, and runs the steps after it', async () => {
    const dir = await fixtureProject('agent-tests');
    await writeFile(join(dir, 'checks/refused.yaml'), REFUSED);
    const result = await agentctl(['test', 'checks/refused.yaml', '--format', 'json'], {
      cwd: dir,
      env: { AGENT_TESTS_KEY: undefined },
    });
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as {
      tests: Array<{
        name: string;
        status: string;
        error?: unknown;
        failures: Array<Record<string, unknown>>;
      }>;
    };
    const [paused, approved] = report.tests;
    expect(paused).toMatchObject({ name: 'message-while-paused', status: 'failed' });
    expect(paused.error).toBeUndefined();
    // One failure: the steps after the refused one resumed the run and met their expectations.
    expect(paused.failures).toEqual([
      {
        turn: 2,
        expectation: 'user',
        message: expect.stringContaining(
          'the run is paused on user_input (', // then the call's generated id
        ),
        expected: 'a run not paused',
        actual: [expect.stringMatching(/^user_input \(/)],
        line: 7,
        col: 11,
      },
    ]);
    expect(paused.failures[0].message).toContain(
      'decide in a step before this one (`answer: { user_input: ... }` or `deny: [user_input]`)',
    );

    expect(approved).toMatchObject({ name: 'question-approved', status: 'failed' });
    expect(approved.error).toBeUndefined();
    expect(approved.failures).toEqual([
      expect.objectContaining({
        turn: 2,
        expectation: 'approve',
        message: expect.stringMatching(/^the run refused the step: tool call \S+ asks a question/),
        line: 19,
        col: 14,
      }),
    ]);
  });
});
