import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentctl,
  BIN,
  cliEnv,
  fixtureProject,
  isSessionPaused,
  parseNdjson,
  removeTempDirs,
  tempProject,
} from './support/cli.js';

// test/fixtures/projects/refunds: `clerk` plays a script (call refund for A-17, then confirm),
// `cashier` is on the offline auto model; both use the `refund` command tool (`echo refunded
// <order>`), which needs approval.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('refunds');
});
afterAll(removeTempDirs);

type Event = Record<string, unknown> & { type: string };
const run = (args: string[]) => agentctl(['run', ...args], { cwd: project });

/** Pauses a new session of `agent` and returns the id of the call waiting for approval. */
async function pause(agent: string, session: string): Promise<string> {
  const { code, stderr } = await run([agent, 'please refund A-17', '--session', session]);
  expect(code, stderr).toBe(0);
  expect(stderr).toContain('paused: 1 tool call(s) wait for a decision');
  const id = /^ {2}(\S+) {2}refund\(/m.exec(stderr)?.[1];
  expect(id, stderr).toBeDefined();
  // The one call to decide is written in, after the command as it runs here (no `agentctl` on PATH).
  expect(stderr).toContain(
    `resume with: node ${BIN} run ${agent} --session ${session} --approve ${id} (or --deny ${id} --reason "...")\n`,
  );
  return id!;
}

const isPaused = (session: string) => isSessionPaused(project, session);

describe.concurrent('a tool that needs approval, with no terminal to ask on', () => {
  it('pauses the run: exit 0, approval_required then run_end paused as the last events', async () => {
    const { code, stdout, stderr } = await run(['clerk', 'please refund A-17', '--json']);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.slice(-2).map((e) => e.type)).toEqual(['approval_required', 'run_end']);
    expect(events.at(-1)).toMatchObject({ status: 'paused' });
    expect(events.at(-2)).toMatchObject({
      pending: [
        { call: { id: 'call_refund', name: 'refund', arguments: { order: 'A-17' } }, kind: 'approval' },
      ],
    });
    expect(events.some((e) => e.type === 'tool_result')).toBe(false);
  });

  it('says it paused and prints the call id on stderr', async () => {
    const id = await pause('clerk', 'clerk-paused');
    expect(id).toBe('call_refund');
    expect(await isPaused('clerk-paused')).toBe(true);
  });

  it('the resume line it prints runs as printed', async () => {
    const { stderr } = await run(['clerk', 'please refund A-17', '--session', 'clerk-printed']);
    const line = /^resume with: (.*) \(or --deny/m.exec(stderr)?.[1];
    expect(line, stderr).toBeDefined();
    const resumed = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('sh', ['-c', line!], { cwd: project, env: cliEnv() });
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
      });
      child.stderr.on('data', (c) => {
        out += c;
      });
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(resumed.code, resumed.out).toBe(0);
    expect(resumed.out).toContain('refunded A-17');
    expect(await isPaused('clerk-printed')).toBe(false);
  });

  it('runs the tool in a new process on --approve, and the session is done', async () => {
    const id = await pause('cashier', 'approve-me');
    const { code, stdout, stderr } = await run([
      'cashier',
      '--session',
      'approve-me',
      '--approve',
      id,
      '--json',
    ]);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.find((e) => e.type === 'tool_result' && e.callId === id)).toMatchObject({
      name: 'refund',
      content: 'refunded example',
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(events.some((e) => e.type === 'approval_required')).toBe(false);
    const [paused, show] = await Promise.all([
      isPaused('approve-me'),
      agentctl(['sessions', 'show', 'approve-me', '--json'], { cwd: project }),
    ]);
    expect(paused).toBe(false);
    const stored = JSON.parse(show.stdout).session.events as Event[];
    expect(stored.filter((e) => e.type === 'tool_result')).toHaveLength(1);
    // The same call cannot be decided twice.
    const again = await run(['cashier', '--session', 'approve-me', '--approve', id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not paused');
  });

  it('gives the reason to the model on --deny and never runs the tool', async () => {
    const id = await pause('cashier', 'deny-me');
    const { code, stdout, stderr } = await run([
      'cashier',
      '--session',
      'deny-me',
      '--deny',
      id,
      '--reason',
      'over the limit',
      '--json',
    ]);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    const result = events.find((e) => e.type === 'tool_result' && e.callId === id);
    expect(result).toMatchObject({ isError: true });
    expect(result?.content).toContain('over the limit');
    expect(result?.content).not.toContain('refunded');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(await isPaused('deny-me')).toBe(false);
  });

  it('exits 2 on a call id the session does not wait for, and keeps it paused', async () => {
    const id = await pause('cashier', 'wrong-id');
    const { code, stdout, stderr } = await run(['cashier', '--session', 'wrong-id', '--approve', 'nope']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('no pending tool call nope');
    expect(stderr).toContain(id);
    expect(await isPaused('wrong-id')).toBe(true);
  });

  it('exits 2 on a new prompt to a paused session, naming the waiting call', async () => {
    const id = await pause('cashier', 'still-paused');
    const { code, stderr } = await run(['cashier', 'another thing', '--session', 'still-paused']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `session still-paused is paused: ${id} waits for a decision before it takes a new prompt`,
    );
    // How to go on, as a command to copy.
    expect(stderr).toContain(`\`node ${BIN} run cashier --session still-paused --approve ${id}\``);
  });

  it('a new prompt to a paused session for another agent names the agent to resume it with', async () => {
    const id = await pause('cashier', 'paused-elsewhere');
    const { code, stderr } = await run(['clerk', 'another thing', '--session', 'paused-elsewhere']);
    expect(code).toBe(2);
    // clerk's tree does not hold cashier: resuming with clerk would be refused.
    expect(stderr).toContain(`\`node ${BIN} run cashier --session paused-elsewhere --approve ${id}\``);
    const resumed = await run(['cashier', '--session', 'paused-elsewhere', '--approve', id]);
    expect(resumed.code, resumed.stderr).toBe(0);
  });

  it('exits 2 when resuming a session that does not exist or was never paused', async () => {
    const [missing, notPaused, noSession] = await Promise.all([
      run(['cashier', '--session', 'never-was', '--approve', 'x']),
      run(['clerk', 'hello', '--session', 'not-paused', '--approve-all']).then(() =>
        run(['clerk', '--session', 'not-paused', '--approve', 'call_refund']),
      ),
      run(['cashier', '--approve', 'x']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no session with id never-was');
    expect(notPaused.code).toBe(2);
    expect(notPaused.stderr).toContain('session not-paused is not paused');
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain('--session');
  });

  it('runs the script through in one process with --approve-all', async () => {
    const { code, stdout, stderr } = await run(['clerk', 'please refund A-17', '--approve-all']);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('The refund of A-17 is on its way.\n');
    expect(stderr).toContain('← refund: refunded A-17');
  });

  it('continues the script in a new process after --approve', async () => {
    const id = await pause('clerk', 'clerk-resume');
    const { code, stdout } = await run(['clerk', '--session', 'clerk-resume', '--approve', id]);
    expect(code).toBe(0);
    expect(stdout).toBe('The refund of A-17 is on its way.\n');
  });
});

describe('a resume killed halfway', () => {
  it('leaves a session that says why --approve finds nothing, and a new prompt goes on', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: killed\n',
      'agents/slow.yaml': `kind: agent
name: slow
model: offline/auto
tools: [nap]
---
kind: tool
name: nap
description: Sleeps
parameters: { type: object, properties: {} }
command: { argv: [sleep, "20"] }
`,
    });
    const paused = await agentctl(['run', 'slow', 'go', '--session', 'cut'], { cwd: dir });
    expect(paused.stderr).toContain('paused: 1 tool call(s) wait for a decision');
    const resume = spawn(
      process.execPath,
      [BIN, 'run', 'slow', '--session', 'cut', '--approve', 'auto_0_0'],
      {
        cwd: dir,
        env: cliEnv(),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    await new Promise<void>((resolve) =>
      resume.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('→ nap(')) resolve();
      }),
    );
    resume.kill('SIGKILL');
    await new Promise((r) => resume.once('close', r));

    const again = await agentctl(['run', 'slow', '--session', 'cut', '--approve', 'auto_0_0'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      'session cut is not paused: its last run stopped before it ended (its process was killed?), and the decisions it was carrying out went with it',
    );
    const next = await agentctl(['run', 'slow', 'go on', '--session', 'cut', '--model', 'offline/echo'], {
      cwd: dir,
    });
    expect(next.code, next.stderr).toBe(0);
  });
});
