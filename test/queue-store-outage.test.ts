import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { liveEvents } from './support/live-events.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';
import { startWorker, stopWorkers, type WorkerProcess } from './support/worker.js';

// docs/deploy.md, failure semantics: `attempts` retry a job whose worker could not reach the store.
// PostgreSQL restarted while a queued run's tool runs: the run's writes and its session lease fail
// under it; the job is tried again from the session once the database is back, and ends once.

const PROJECT_FILE = `kind: project
name: outage
defaults: { memory: shared }
queue:
  attempts: 20
  backoff: { type: fixed, delay: 500ms }
  lock_duration: 3s
  stalled_interval: 1s
`;

const MEMORY = `kind: memory
name: shared
backend: postgres
url: \${DATABASE_URL}
options: { connect_timeout: 2s }
`;

let redis: RedisProcess;
let pg: TestPostgres;
let database: string;
let server: ServeProcess;
let worker: WorkerProcess;

beforeAll(async () => {
  [redis, pg] = await Promise.all([startRedis(), startPostgres()]);
  const dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT_FILE);
  await writeFile(join(dir, 'agents/memory.yaml'), MEMORY);
  database = 'outage';
  const env = { AGENTCTL_QUEUE_URL: redis.url, DATABASE_URL: await pg.createDatabase(database) };
  [server, worker] = await Promise.all([startServe(dir, [], env), startWorker(dir, [], env)]);
}, 90_000);

afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await pg?.stop();
  await removeTempDirs();
});

describe('PostgreSQL restarted under a queued run', () => {
  it('the job is tried again from the session once it is back, and the run ends once, complete', async () => {
    const started = await fetch(`${server.url}/agents/slow/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'crunch it', sessionId: 'outage-1', async: true }),
    });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const stream = liveEvents(await fetch(`${server.url}/runs/${runId}/events`));
    try {
      await stream.waitFor((e) => e.event === 'tool_call', { timeoutMs: 30_000 });
      // The tool runs for seconds: its result, and the renewals of the session's lease, find no database.
      await pg.down();
      // The first try fails (or, as before, the run ends there): either way, the database comes back.
      await waitFor(
        () =>
          worker.stderr().includes(`run ${runId} failed on try 1`) ||
          stream.events.some((e) => e.event === 'end'),
        'the first try fails',
      );
      await pg.up();
      const end = await stream.waitFor((e) => e.event === 'end', { timeoutMs: 60_000 });
      expect(JSON.parse(end.data)).toMatchObject({
        status: 'complete',
        output: expect.stringContaining('[interrupted]'),
      });
      expect(worker.stderr()).toContain('it is tried again (queue.attempts)');
      expect(worker.stderr()).toContain(`run ${runId} resumes from its session`);
      expect(stream.events.filter((e) => e.event === 'end')).toHaveLength(1);
    } finally {
      await stream.close();
    }
    // The session holds one end of the run, the one streamed: the failed try stored nothing of its own.
    const ends = await pg.sql(
      "SELECT string_agg(event->>'status', ',') FROM agentctl_events WHERE session_id = 'outage-1' AND event->>'type' = 'run_end'",
      database,
    );
    expect(ends).toBe('complete');
    const errors = await pg.sql(
      "SELECT count(*) FROM agentctl_events WHERE session_id = 'outage-1' AND event->>'type' = 'error'",
      database,
    );
    expect(errors).toBe('0');
  }, 120_000);
});
