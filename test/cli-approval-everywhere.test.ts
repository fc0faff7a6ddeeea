import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, isSessionPaused, parseNdjson, removeTempDirs } from './support/cli.js';
import { agentctlOnTerminal, NO_TERMINAL, terminalDrivers } from './support/terminal.js';

// test/fixtures/projects/lifecycle: the `refund` command tool needs approval, and is called from
// every place a call can wait: after a transfer (desk -> billing), inside an agent tool's child
// session (writer -> checker), and inside sequential, parallel and loop workflow agents.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('lifecycle');
});
afterAll(removeTempDirs);

const run = (args: string[]) => agentctl(['run', ...args], { cwd: project });

/** Where a call waits, the call's id, and the final answer once it ran. */
const PLACES = [
  { place: 'after a transfer', agent: 'desk', call: 'call_billing_refund', answer: 'billing refunded A-17' },
  {
    place: 'inside an agent tool',
    agent: 'writer',
    call: 'call_checker_refund',
    answer: 'writer heard back from the checker',
  },
  {
    place: 'inside a sequential agent',
    agent: 'pipeline',
    call: 'call_payer_refund',
    answer: 'payer refunded A-17',
  },
  {
    place: 'inside a parallel agent',
    agent: 'fanout',
    call: 'call_right_refund',
    answer: 'right side refunded A-17',
  },
  { place: 'inside a loop agent', agent: 'rounds', call: 'call_loop_refund', answer: 'The loop will stop.' },
] as const;

const isPaused = (session: string) => isSessionPaused(project, session);

describe.concurrent('--approve and --deny in a later process', () => {
  it.each(PLACES)('$place: the approved call runs and the run completes', async ({ agent, call, answer }) => {
    const session = `approve-${agent}`;
    const first = await run([agent, 'refund A-17', '--session', session]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`  ${call}  refund({"order":"A-17"})`);
    expect(await isPaused(session)).toBe(true);

    const resumed = await run([agent, '--session', session, '--approve', call, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = parseNdjson(resumed.stdout);
    expect(events.find((e) => e.type === 'tool_result' && e.callId === call)).toMatchObject({
      name: 'refund',
      content: 'refunded A-17',
      isError: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(JSON.stringify(events)).toContain(answer);
    expect(await isPaused(session)).toBe(false);

    const again = await run([agent, '--session', session, '--approve', call]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not paused');
  });

  it('after a transfer, --deny gives the reason to the agent that asked and never runs the tool', async () => {
    const first = await run(['desk', 'refund A-17', '--session', 'deny-desk']);
    expect(first.code, first.stderr).toBe(0);
    const denied = await run([
      'desk',
      '--session',
      'deny-desk',
      '--deny',
      'call_billing_refund',
      '--reason',
      'over the limit',
      '--json',
    ]);
    expect(denied.code, denied.stderr).toBe(0);
    const events = parseNdjson(denied.stdout);
    const result = events.find((e) => e.type === 'tool_result' && e.callId === 'call_billing_refund');
    expect(result).toMatchObject({ isError: true, author: 'billing' });
    expect(String(result?.content)).toContain('over the limit');
    expect(events.some((e) => e.type === 'tool_result' && e.content === 'refunded A-17')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(await isPaused('deny-desk')).toBe(false);
  });
});

const driver = terminalDrivers()[0];

describe.skipIf(!driver)(
  `approval on a terminal, in the same process (${driver?.name ?? NO_TERMINAL})`,
  () => {
    it.each(PLACES)('$place: asks, runs the call on y, and completes', async ({ agent, answer }) => {
      const { code, screen } = await agentctlOnTerminal(
        driver!,
        ['run', agent, 'refund A-17'],
        [['[y/N] ', 'y\r']],
        { cwd: project },
      );
      expect(code, screen).toBe(0);
      expect(screen).toContain('Allow refund({"order":"A-17"})? [y/N] ');
      expect(screen).toContain('← refund: refunded A-17');
      expect(screen).toContain(answer);
      expect(screen).not.toContain('paused:');
    });
  },
);
