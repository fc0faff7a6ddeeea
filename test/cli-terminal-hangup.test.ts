import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, fixtureProject, REPO, removeTempDirs } from './support/cli.js';

// test/fixtures/projects/lifecycle: `sleeper` calls `nap` (a command tool running `sleep 6`);
// `desk` transfers to `billing`, whose `refund` call needs approval.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('lifecycle');
});
afterAll(removeTempDirs);

const hasPty = spawnSync('python3', ['-c', 'import pty, select'], { stdio: 'ignore' }).status === 0;

/** Runs `agentctl ARGS` on a terminal that hangs up (closes) once it shows `text`; resolves when agentctl has ended. */
function hangUpAt(text: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'python3',
      [join(REPO, 'test/support/pty-hangup.py'), text, process.execPath, BIN, ...args],
      { cwd: project, env: cliEnv({ TERM: 'xterm' }), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the hung-up run did not end; screen:\n${screen}`));
    }, 30_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(screen);
    });
  });
}

async function eventsOf(session: string): Promise<Array<Record<string, unknown>>> {
  const show = await agentctl(['sessions', 'show', session, '--json'], { cwd: project });
  expect(show.code, show.stderr).toBe(0);
  return JSON.parse(show.stdout).session.events;
}

const leftovers = () =>
  readdirSync(join(project, '.agentctl/sessions')).filter((f) => f.includes('.lock') || f.endsWith('.lease'));

describe.skipIf(!hasPty)('the terminal closing under a run (python3 pty)', () => {
  it('during a tool: the run is stopped as by SIGHUP, and its session ends with it and goes on', async () => {
    const screen = await hangUpAt('→ nap(', ['run', 'sleeper', 'take a nap', '--session', 'hung-tool']);
    expect(screen).toContain('→ nap(');
    const events = await eventsOf('hung-tool');
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      code: 'ABORTED',
      message: 'stopped by SIGHUP',
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
    expect(leftovers()).toEqual([]);
    const next = await agentctl(
      ['run', 'sleeper', 'awake?', '--session', 'hung-tool', '--model', 'offline/echo'],
      {
        cwd: project,
      },
    );
    expect(next.code, next.stderr).toBe(0);
  });

  it('at an approval question: the session ends whole (paused or stopped), never cut off', async () => {
    await hangUpAt('[y/N] ', ['run', 'desk', 'refund A-17', '--session', 'hung-question']);
    const events = await eventsOf('hung-question');
    expect(events.at(-1)).toMatchObject({ type: 'run_end' });
    expect(leftovers()).toEqual([]);
  });
});
