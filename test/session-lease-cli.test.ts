import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSessionStore } from '../packages/store-file/src/index.js';
import { agentctl, BIN, cliEnv, removeTempDirs, tempDir } from './support/cli.js';
import { waitFor } from './support/wait-for.js';

// An agent on the offline `auto` model: on each prompt it calls its `nap` command tool (two seconds)
// and then answers, so two runs started together overlap while a tool call is open.
const PROJECT = `kind: agent
name: worker
model: offline/auto
instruction: Take a nap, then say so.
tools: [nap]
---
kind: tool
name: nap
description: Sleeps a little.
parameters: { type: object, properties: {} }
command: { argv: [sleep, "2"] }
timeout: 10s
needs_approval: false
`;

let project: string;
beforeAll(async () => {
  project = await tempDir('agentctl-lease-');
  await mkdir(join(project, 'agents'));
  await writeFile(join(project, 'agentctl.yaml'), 'kind: project\nname: leases\n');
  await writeFile(join(project, 'agents', 'worker.yaml'), PROJECT);
});
afterAll(() => removeTempDirs());

const run = (session: string, ...extra: string[]) =>
  agentctl(['run', 'worker', 'nap please', '--session', session, ...extra], {
    cwd: project,
    timeoutMs: 60_000,
  });

/** Every invocation's events are contiguous and every tool call has its result: a valid conversation. */
async function assertValid(session: string, invocations: number): Promise<void> {
  const stored = await new FileSessionStore({ path: join(project, '.agentctl', 'sessions') }).get(session);
  const ids = stored!.events.map((e) => e.invocationId);
  const order = [...new Set(ids)];
  expect(order).toHaveLength(invocations);
  for (const id of order)
    expect(ids.lastIndexOf(id) - ids.indexOf(id) + 1).toBe(ids.filter((x) => x === id).length);
  const calls = stored!.events.flatMap((e) => (e.type === 'tool_call' ? [e.call.id] : []));
  const results = stored!.events.flatMap((e) => (e.type === 'tool_result' ? [e.callId] : []));
  expect(results.sort()).toEqual(calls.sort());
  expect(calls).toHaveLength(invocations);
}

describe('two agentctl run processes on one session', () => {
  it('on a brand-new id: one runs, the other fails at once naming it (exit 1, never 3)', async () => {
    const results = await Promise.all([run('fresh'), run('fresh')]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    const refused = results.find((r) => r.code === 1)!;
    expect(refused.stderr).toMatch(
      /agentctl: session fresh is busy: invocation [0-9a-f-]{36} of agent worker holds it \(since .*pid \d+ on /,
    );
    expect(refused.stderr).toContain('pass --wait [DURATION] to wait for it');
    expect(refused.stderr).not.toContain('internal error');
    // The session stays valid: a third run continues it.
    const third = await run('fresh');
    expect(third.code, third.stderr).toBe(0);
    await assertValid('fresh', 2);
  }, 90_000);

  it('with --wait, the second run waits for the first and then continues the session', async () => {
    const first = await run('waited');
    expect(first.code, first.stderr).toBe(0);
    const results = await Promise.all([run('waited', '--wait', '30s'), run('waited', '--wait')]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    await assertValid('waited', 3);
    // Leases and locks are gone once the runs are over.
    const left = await readdir(join(project, '.agentctl', 'sessions'));
    expect(left.filter((name) => /\.(lease|lock)/.test(name))).toEqual([]);
  }, 90_000);

  it('a run killed while it holds the session does not block the next one', async () => {
    const child = spawn(process.execPath, [BIN, 'run', 'worker', 'nap please', '--session', 'killed'], {
      cwd: project,
      env: cliEnv(),
      stdio: 'ignore',
    });
    const lease = join(project, '.agentctl', 'sessions', 'killed.lease');
    await waitFor(() => existsSync(lease), 'the lease file');
    await new Promise((r) => setTimeout(r, 500)); // inside the nap, the tool call open
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // Without --wait a held session fails at once: exit 0 shows the dead run's lease (30 s left) is
    // free because its process is gone, and the session it left mid-tool-call continues.
    const next = await run('killed');
    expect(next.code, next.stderr).toBe(0);
    expect(existsSync(lease)).toBe(false);
  }, 60_000);

  it('sessions rm refuses a session a run holds (exit 1); the run ends well; rm works after', async () => {
    const running = run('removed');
    const lease = join(project, '.agentctl', 'sessions', 'removed.lease');
    await waitFor(() => existsSync(lease), 'the lease file');
    const refused = await agentctl(['sessions', 'rm', 'removed'], { cwd: project });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(
      /agentctl: session removed is busy: invocation [0-9a-f-]{36} of agent worker holds it .*; it was not removed/,
    );
    const done = await running;
    expect(done.code, done.stderr).toBe(0);
    await assertValid('removed', 1);
    const removed = await agentctl(['sessions', 'rm', 'removed'], { cwd: project });
    expect(removed.code, removed.stderr).toBe(0);
    const left = await readdir(join(project, '.agentctl', 'sessions'));
    expect(left.filter((name) => name.startsWith('removed'))).toEqual([]);
  }, 90_000);

  it('retention (max_sessions: 1) spares the session of a run still going; the run ends well', async () => {
    const dir = await tempDir('agentctl-retention-');
    await mkdir(join(dir, 'agents'));
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: kept\ndefaults: { memory: few }\n');
    await writeFile(
      join(dir, 'agents', 'worker.yaml'),
      `${PROJECT}---\nkind: memory\nname: few\npath: ../sessions\nretention: { max_sessions: 1 }\n`,
    );
    const runIn = (session: string) =>
      agentctl(['run', 'worker', 'nap please', '--session', session], { cwd: dir, timeoutMs: 60_000 });
    const first = runIn('first');
    await waitFor(() => existsSync(join(dir, 'sessions', 'first.lease')), 'the lease file');
    const second = await runIn('second');
    expect(second.code, second.stderr).toBe(0);
    const done = await first;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).not.toContain('no session with id');
    const third = await runIn('third');
    expect(third.code, third.stderr).toBe(0);
    const left = await readdir(join(dir, 'sessions'));
    expect(left.filter((name) => name.endsWith('.jsonl') && name !== 'index.jsonl')).toEqual(['third.jsonl']);
  }, 90_000);

  it('an invalid --session id is bad usage (exit 2) with the rule for ids', async () => {
    for (const id of ['../../x', 'index', 'x'.repeat(129)]) {
      const result = await run(id);
      expect(result.code, id).toBe(2);
      expect(result.stderr).toContain('a session id is 1-128 characters from A-Z a-z 0-9 . _ -');
      expect(result.stderr).not.toContain('internal error');
    }
  }, 60_000);

  it('so is one given to dev, refused before the chat starts rather than at every message', async () => {
    for (const id of ['../x', '']) {
      const result = await agentctl(['dev', 'worker', '--session', id], { cwd: project, input: 'hello\n' });
      expect(result.code, id).toBe(2);
      expect(result.stderr).toContain(`agentctl: --session: invalid session id "${id}"`);
      expect(result.stderr).not.toContain('chatting with');
      expect(result.stderr).not.toMatch(/^session /m);
    }
  }, 60_000);

  // An empty user is no user: the run's `user:` keys would stay in its session alone, while the
  // command line reads as if they were shared.
  it('an empty or blank --user is bad usage (exit 2) in run and dev, before anything runs', async () => {
    for (const [args, input] of [
      [['run', 'worker', 'hi', '--user', ''], ''],
      [['run', 'worker', 'hi', '--user', '  '], ''],
      [['dev', 'worker', '--user', ''], 'hello\n'],
    ] as const) {
      const result = await agentctl([...args], { cwd: project, input });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(
        'agentctl: --user needs a user id (leave --user out for a run with no user)',
      );
      expect(result.stderr).not.toContain('chatting with');
    }
  }, 60_000);
});
