import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentctl,
  BIN,
  fixtureProject,
  isSessionPaused,
  parseNdjson,
  removeTempDirs,
} from './support/cli.js';
import { agentctlOnTerminal, NO_TERMINAL, terminalDrivers } from './support/terminal.js';

// test/fixtures/projects/lifecycle: `asker` calls the built-in `user_input` tool (call_ask_city),
// `interviewer` calls the agent tool `city_asker`, whose own user_input call (call_child_city)
// asks from a child session.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('lifecycle');
});
afterAll(removeTempDirs);

const run = (args: string[]) => agentctl(['run', ...args], { cwd: project });

const isPaused = (session: string) => isSessionPaused(project, session);

/** Starts `agent` in a new session, which pauses on a question; returns stderr. */
async function pauseOnQuestion(agent: string, session: string): Promise<string> {
  const { code, stdout, stderr } = await run([agent, 'where to?', '--session', session]);
  expect(code, stderr).toBe(0);
  expect(stdout).not.toContain('←');
  return stderr;
}

describe.concurrent('a tool that asks the user, with no terminal', () => {
  it('pauses, shows the question and says to answer with --answer', async () => {
    const stderr = await pauseOnQuestion('asker', 'q-message');
    expect(stderr).toContain('call_ask_city  user_input(');
    expect(stderr).toContain('asks: Which city? (Oslo / Lima)');
    expect(stderr).toContain(
      `answer with: node ${BIN} run asker --session q-message --answer call_ask_city="<your answer>"`,
    );
    expect(stderr).not.toContain('--approve <call id>');
    expect(await isPaused('q-message')).toBe(true);
    const show = await agentctl(['sessions', 'show', 'q-message'], { cwd: project });
    expect(show.stdout).toContain('⏸ waiting for an answer (call_ask_city): Which city? (Oslo / Lima)');
  });

  it('--answer CALL_ID=TEXT becomes the call result and the run completes', async () => {
    await pauseOnQuestion('asker', 'q-answer');
    const { code, stdout, stderr } = await run([
      'asker',
      '--session',
      'q-answer',
      '--answer',
      'call_ask_city=Oslo, by the fjord',
      '--json',
    ]);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      callId: 'call_ask_city',
      name: 'user_input',
      content: 'Oslo, by the fjord',
      isError: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'noted the city' });
    expect(await isPaused('q-answer')).toBe(false);
  });

  it('--answer-file CALL_ID=PATH answers with the file (without its last newline)', async () => {
    await pauseOnQuestion('asker', 'q-file');
    await writeFile(join(project, 'answer.txt'), 'Lima\nthe old town\n');
    const { code, stdout, stderr } = await run([
      'asker',
      '--session',
      'q-file',
      '--answer-file',
      'call_ask_city=answer.txt',
      '--json',
    ]);
    expect(code, stderr).toBe(0);
    expect(parseNdjson(stdout).find((e) => e.type === 'tool_result')).toMatchObject({
      content: 'Lima\nthe old town',
    });
  });

  it('--answer-file past 32 MiB is refused (exit 2) and the question still waits', async () => {
    await pauseOnQuestion('asker', 'q-huge');
    await writeFile(join(project, 'huge.txt'), 'a'.repeat(32 * 1024 * 1024 + 1));
    const { code, stderr } = await run([
      'asker',
      '--session',
      'q-huge',
      '--answer-file',
      'call_ask_city=huge.txt',
    ]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('agentctl: --answer-file call_ask_city (huge.txt) is larger than 32 MiB');
    expect(await isPaused('q-huge')).toBe(true);
  });

  it('--approve does not re-run the question: exit 2, and the session still waits', async () => {
    await pauseOnQuestion('asker', 'q-approve');
    const { code, stdout, stderr } = await run([
      'asker',
      '--session',
      'q-approve',
      '--approve',
      'call_ask_city',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('call_ask_city asks a question, not for approval');
    expect(stdout).toBe('');
    expect(await isPaused('q-approve')).toBe(true);
  });

  it('--deny refuses to answer: the model is told why and the run goes on', async () => {
    await pauseOnQuestion('asker', 'q-deny');
    const { code, stdout, stderr } = await run([
      'asker',
      '--session',
      'q-deny',
      '--deny',
      'call_ask_city',
      '--reason',
      'ask me later',
      '--json',
    ]);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    const result = events.find((e) => e.type === 'tool_result' && e.callId === 'call_ask_city');
    expect(result).toMatchObject({ isError: true });
    expect(String(result?.content)).toContain('ask me later');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('--answer to a call that waits for approval is exit 2', async () => {
    const first = await run(['desk', 'refund A-17', '--session', 'q-wrong-kind']);
    expect(first.code, first.stderr).toBe(0);
    const { code, stderr } = await run([
      'desk',
      '--session',
      'q-wrong-kind',
      '--answer',
      'call_billing_refund=yes',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('waits for approval, not for an answer');
    expect(await isPaused('q-wrong-kind')).toBe(true);
  });

  it('a malformed --answer is exit 2 naming the form', async () => {
    const { code, stderr } = await run(['asker', '--session', 'x', '--answer', 'Oslo']);
    expect(code).toBe(2);
    expect(stderr).toContain('--answer takes CALL_ID=TEXT, got "Oslo"');
  });

  it('a question asked inside an agent tool is answered with --answer in a later process', async () => {
    const stderr = await pauseOnQuestion('interviewer', 'q-child');
    expect(stderr).toContain('asks: Which city for the child?');
    expect(stderr).toContain('--answer call_child_city=');
    const { code, stdout } = await run([
      'interviewer',
      '--session',
      'q-child',
      '--answer',
      'call_child_city=Lima',
      '--json',
    ]);
    expect(code).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'call_child_city')).toMatchObject({
      content: 'Lima',
    });
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'call_interview')).toMatchObject({
      content: 'the child noted the city',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'complete',
      output: 'the interview is over',
    });
  });
});

const driver = terminalDrivers()[0];

describe.skipIf(!driver)(`a tool that asks the user, on a terminal (${driver?.name ?? NO_TERMINAL})`, () => {
  it('asks the question there and gives the answer to the model', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'asker', 'where to?'],
      [['Answer: ', 'Lima\r']],
      { cwd: project },
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('user_input asks: Which city? (Oslo / Lima)');
    expect(screen).toContain('← user_input: Lima');
    expect(screen).toContain('noted the city');
    expect(screen).not.toContain('paused:');
  });

  it('asks inside an agent tool too', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'interviewer', 'where to?'],
      [['Answer: ', 'Oslo\r']],
      { cwd: project },
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('user_input asks: Which city for the child?');
    expect(screen).toContain('the interview is over');
  });
});
