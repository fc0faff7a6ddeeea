import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { liveEvents } from './support/live-events.js';
import type { LongRunning } from './support/long-running.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { startServe, stopServers } from './support/serve.js';
import { startWorker, stopWorkers } from './support/worker.js';

// docs/serve.md and docs/deploy.md, shutdown: SIGTERM lets runs finish for --grace, then cancels
// them (serve) or hands them back to the queue (worker). With the session store's PostgreSQL frozen
// (SIGSTOP: connections open, nothing answers), the runs' last writes, their lease releases and the
// store's close wait for an answer that does not come: the process must still exit within the
// grace and a short wind-down, not after the store's query_timeout (30 s), and leave the session to
// be continued once the database is back.

const PROJECT = `kind: project
name: frozen
defaults: { memory: shared }
`;

const MEMORY = `kind: memory
name: shared
backend: postgres
url: \${DATABASE_URL}
`;

let pg: TestPostgres;
let redis: RedisProcess;
let dir: string;
let url: string;

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT);
  await writeFile(join(dir, 'agents/memory.yaml'), MEMORY);
  url = await pg.createDatabase('frozen');
}, 90_000);

afterAll(async () => {
  pg?.thaw();
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await pg?.stop();
  await removeTempDirs();
});

// SIGTERM, then the exit code once the process is gone; fails when it is still there after a bound
// well below the store's 30 s query_timeout, which the shutdown waited out before.
async function stopWithin(running: LongRunning, name: string): Promise<number | null> {
  running.child.kill('SIGTERM');
  const late = new Promise<'late'>((resolve) => {
    const timer = setTimeout(() => resolve('late'), 20_000);
    running.exited.then(() => clearTimeout(timer));
  });
  const outcome = await Promise.race([running.exited, late]);
  expect(outcome, `${name} did not exit in time; stderr:\n${running.stderr()}`).not.toBe('late');
  return outcome as number | null;
}

describe('stopped while the session store (PostgreSQL) is frozen', () => {
  it('agentctl serve: exits within the grace and a short wind-down, and the session is continued once the database is back', async () => {
    const env = { DATABASE_URL: url, CRUNCH_SECONDS: '30' };
    const server = await startServe(dir, ['--grace', '500ms'], env);
    const response = await fetch(`${server.url}/agents/slow/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'crunch it', sessionId: 'frozen-1' }),
    });
    const stream = liveEvents(response);
    await stream.waitFor((e) => e.event === 'tool_call', { timeoutMs: 30_000 });
    pg.freeze();
    let code: number | null;
    try {
      code = await stopWithin(server, 'serve');
    } finally {
      pg.thaw();
    }
    expect(code).toBe(0);
    expect(server.stderr()).toContain(
      '1 cancelled (1 did not end in the wind-down after being cancelled: a session store that does not answer',
    );
    await stream.close();

    // The dead server's lease lapses within its 30 s; here it is made to lapse now, as time would.
    await pg.sql('UPDATE agentctl_leases SET expires_at = 0', 'frozen');
    const again = await agentctl(['run', 'slow', 'crunch it again', '--session', 'frozen-1', '--json'], {
      cwd: dir,
      env: { ...env, CRUNCH_SECONDS: '0' },
      timeoutMs: 60_000,
    });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const events = again.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; status?: string });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  }, 120_000);

  it('agentctl worker: exits within the grace and a short wind-down, the run handed back and continued once the database is back', async () => {
    const env = { DATABASE_URL: url, AGENTCTL_QUEUE_URL: redis.url, CRUNCH_SECONDS: '30' };
    const server = await startServe(dir, [], env);
    const worker = await startWorker(dir, ['--grace', '500ms'], env);
    const queued = await fetch(`${server.url}/agents/slow/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'crunch it', sessionId: 'frozen-2', async: true }),
    });
    expect(queued.status).toBe(202);
    const { runId } = (await queued.json()) as { runId: string };
    const stream = liveEvents(await fetch(`${server.url}/runs/${runId}/events`));
    await stream.waitFor((e) => e.event === 'tool_call', { timeoutMs: 30_000 });
    pg.freeze();
    let code: number | null;
    try {
      code = await stopWithin(worker, 'worker');
    } finally {
      pg.thaw();
    }
    expect(code).toBe(0);
    expect(worker.stderr()).toContain('0 run(s) finished, 1 handed back to the queue');
    // Another worker continues the run from its session once the old lease lapses (made to now).
    await pg.sql('UPDATE agentctl_leases SET expires_at = 0', 'frozen');
    await startWorker(dir, [], { ...env, CRUNCH_SECONDS: '0' });
    const end = await stream.waitFor((e) => e.event === 'end', { timeoutMs: 60_000 });
    expect(JSON.parse(end.data)).toMatchObject({ status: 'complete' });
    await stream.close();
  }, 120_000);
});
