import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, fixtureProject, removeTempDirs } from './support/cli.js';
import { agentctlOnTerminal, NO_TERMINAL, terminalDrivers } from './support/terminal.js';

// test/fixtures/projects/lifecycle: `sleeper` calls `nap` (a command tool running `sleep 6`, no
// approval needed); `desk` transfers to `billing`, whose `refund` call needs approval.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('lifecycle');
});
afterAll(removeTempDirs);

const driver = terminalDrivers()[0];

/** The session id a new run printed. */
function sessionOf(screen: string): string {
  const id = /session ([0-9a-f-]{36})/.exec(screen)?.[1];
  expect(id, screen).toBeDefined();
  return id!;
}

/** The session is valid: a later run continues it (on the echo model) and answers. */
async function expectContinuable(agent: string, session: string, cwd = project): Promise<void> {
  const next = await agentctl(['run', agent, 'and now?', '--session', session, '--model', 'offline/echo'], {
    cwd,
  });
  expect(next.code, next.stderr).toBe(0);
  expect(next.stdout).toContain('and now?');
}

/** Lock files left in the project's session folder. */
function locksLeft(cwd = project): string[] {
  return readdirSync(join(cwd, '.agentctl/sessions')).filter(
    (f) => f.includes('.lock') || f.endsWith('.lease'),
  );
}

describe.skipIf(!driver)(`Ctrl-C and the spinner on a terminal (${driver?.name ?? NO_TERMINAL})`, () => {
  it('Ctrl-C cancels a running tool: ABORTED, exit 130, and the session goes on', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'sleeper', 'take a nap'],
      [['→ nap(', '\u0003']],
      { cwd: project },
    );
    expect(code, screen).toBe(130);
    expect(screen).toContain('cancelling… (Ctrl-C again to quit at once)');
    expect(screen).toContain('error [ABORTED]');
    expect(screen).not.toContain('← nap');
    expect(screen).not.toContain('rested');
    expect(locksLeft()).toEqual([]);
    await expectContinuable('sleeper', sessionOf(screen));
  });

  it('a second Ctrl-C quits at once, and the session is still valid', async () => {
    // Its own copy: quitting at once may leave a lock of a dead process, which the next run breaks.
    const own = await fixtureProject('lifecycle');
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'sleeper', 'take a nap'],
      [['→ nap(', '\u0003\u0003']],
      { cwd: own },
    );
    expect(code, screen).toBe(130);
    expect(screen).not.toContain('rested');
    await expectContinuable('sleeper', sessionOf(screen), own);
  });

  it('Ctrl-C at the reason prompt cancels cleanly: ABORTED, not MODEL_ERROR', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'desk', 'refund A-17'],
      [
        ['[y/N] ', 'n\r'],
        ['Reason (optional): ', '\u0003'],
      ],
      { cwd: project },
    );
    expect(code, screen).toBe(130);
    expect(screen).toContain('error [ABORTED]');
    expect(screen).not.toContain('MODEL_ERROR');
    expect(screen).not.toContain('refunded A-17');
    expect(locksLeft()).toEqual([]);
    await expectContinuable('desk', sessionOf(screen));
  });

  it('Ctrl-D at the approval question leaves the call undecided: paused, exit 0, and --approve resumes it', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'desk', 'refund A-17'],
      [['[y/N] ', '\u0004']],
      {
        cwd: project,
      },
    );
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('INTERNAL_ERROR');
    expect(screen).toMatch(/\[y\/N\] \n/);
    expect(screen).toContain('paused: 1 tool call(s) wait for a decision');
    expect(screen).toContain('call_billing_refund  refund({"order":"A-17"})');
    expect(locksLeft()).toEqual([]);
    const resumed = await agentctl(
      ['run', 'desk', '--session', sessionOf(screen), '--approve', 'call_billing_refund'],
      {
        cwd: project,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('← refund: refunded A-17');
  });

  it('Ctrl-D at a question leaves it unanswered: paused, exit 0, and --answer resumes it', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'asker', 'plan my trip'],
      [['Answer: ', '\u0004']],
      {
        cwd: project,
      },
    );
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('INTERNAL_ERROR');
    expect(screen).toContain(`answer with: node ${BIN} run asker --session`);
    const resumed = await agentctl(
      ['run', 'asker', '--session', sessionOf(screen), '--answer', 'call_ask_city=Lima'],
      {
        cwd: project,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('noted the city');
  });

  it('Ctrl-D at the reason prompt denies the call with no reason', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'desk', 'refund A-17'],
      [
        ['[y/N] ', 'n\r'],
        ['Reason (optional): ', '\u0004'],
      ],
      { cwd: project },
    );
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('INTERNAL_ERROR');
    expect(screen).toContain('← refund in desk › billing: The call was not run: denied by the user. [error]');
  });

  it('--json with no prompt on a terminal says it reads the prompt as typed, then runs it', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'prep', '--json', '--model', 'offline/echo'],
      [['Ctrl-D on a line of its own', 'get ready\r\u0004']],
      { cwd: project, timeoutMs: 15_000 },
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('reading the prompt from the terminal');
    expect(screen).toContain('"type":"run_end"');
  });

  it('in a chat, Ctrl-C at the you> prompt ends the chat', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'prep'],
      [
        ['you> ', 'get ready\r'],
        ['you> ', '\u0003'],
      ],
      { cwd: project },
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('prepared');
  });

  it('shows a spinner while a tool works', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'sleeper', 'take a nap'],
      [['running nap…', '\u0003']],
      { cwd: project },
    );
    expect(code, screen).toBe(130);
    expect(screen).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running nap…/);
  });

  it('asks the approval question on its own line, after the call it is about', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'desk', 'refund A-17'],
      [['[y/N] ', 'y\r']],
      { cwd: project },
    );
    expect(code, screen).toBe(0);
    expect(screen).toMatch(
      /\n {2}→ refund\(\{"order":"A-17"\}\)\n+Allow refund\(\{"order":"A-17"\}\)\? \[y\/N\] /,
    );
  });
});

it('draws no spinner when stderr is not a terminal', async () => {
  const { code, stderr } = await agentctl(['run', 'sleeper', 'take a nap'], { cwd: project });
  expect(code, stderr).toBe(0);
  expect(stderr).toContain('← nap');
  expect(stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|running nap…/);
  expect(stderr).not.toContain('\u001b[K');
});
