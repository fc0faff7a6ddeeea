import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, exampleProject, fixtureProject, removeTempDirs } from './support/cli.js';
import { agentctlOnTerminal, NO_TERMINAL, terminalDrivers } from './support/terminal.js';

// Every driver this machine has, so the `script` fallback is exercised where python3 is too.
const drivers = terminalDrivers();
const driver = drivers[0];

let examples: string;
let refunds: string;
beforeAll(async () => {
  examples = await exampleProject();
  refunds = await fixtureProject('refunds');
});
afterAll(removeTempDirs);

/** The user messages stored in a session, read back by another process. */
async function userMessages(cwd: string, id: string): Promise<string[]> {
  const { code, stdout } = await agentctl(['sessions', 'show', id, '--json'], { cwd });
  expect(code).toBe(0);
  const events = JSON.parse(stdout).session.events as Array<{
    type: string;
    message?: { role: string; content: string };
  }>;
  return events
    .filter((e) => e.type === 'message' && e.message?.role === 'user')
    .map((e) => e.message!.content);
}

describe.skipIf(!driver)(`agentctl on a terminal (${driver?.name ?? `skipped: ${NO_TERMINAL}`})`, () => {
  it.each(drivers.map((d) => [d.name, d] as const))(
    'chats until an empty line, answering each message in one session (%s)',
    async (_name, d) => {
      const { code, screen } = await agentctlOnTerminal(
        d,
        ['run', 'hello'],
        [
          ['you> ', 'alpha one\r'],
          ['you> ', 'beta two\r'],
          ['you> ', '\r'],
        ],
        { cwd: examples },
      );
      expect(code, screen).toBe(0);
      expect(screen).toContain('chatting with hello');
      // Each line typed is followed by the echo model's answer on the next line.
      expect(screen).toMatch(/you> alpha one\n+alpha one\n/);
      expect(screen).toMatch(/you> beta two\n+beta two\n/);
      expect(screen.indexOf('alpha one')).toBeLessThan(screen.indexOf('beta two'));
      const id = /session ([0-9a-f-]{36})/.exec(screen)?.[1];
      expect(id, screen).toBeDefined();
      expect(await userMessages(examples, id!)).toEqual(['alpha one', 'beta two']);
    },
  );

  it('asks before a tool that needs approval, and runs it on y', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'clerk', 'please refund A-17'],
      [['[y/N] ', 'y\r']],
      { cwd: refunds },
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('Allow refund({"order":"A-17"})? [y/N] ');
    expect(screen).toContain('← refund: refunded A-17');
    expect(screen).toContain('The refund of A-17 is on its way.');
  });

  it('asks for a reason on n and gives it to the model instead of running the tool', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'clerk', 'please refund A-17'],
      [
        ['[y/N] ', 'n\r'],
        ['Reason (optional): ', 'over the limit\r'],
      ],
      { cwd: refunds },
    );
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/← refund: .*over the limit.*\[/);
    expect(screen).not.toContain('refunded A-17');
  });
});
