import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentEvent, findPairingProblem, historyFor } from '../packages/core/src/index.js';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { liveEvents } from './support/live-events.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';
import { startWorker, stopWorkers } from './support/worker.js';

// docs/deploy.md, failure semantics: no run completes twice, no event is duplicated. A worker that
// is paused (SIGSTOP, a frozen VM, a blocked event loop) past its lock and lease while its tool
// runs sees another worker finish the run; when it wakes up, it must not write into that session.

const PROJECT_FILE = `kind: project
name: paused
defaults: { memory: shared }
queue:
  attempts: 3
  backoff: { type: fixed, delay: 200ms }
  lock_duration: 2s
  stalled_interval: 1s
`;

const MEMORY = `kind: memory
name: shared
backend: postgres
url: \${DATABASE_URL}
`;

let redis: RedisProcess;
let pg: TestPostgres;
let dir: string;
let env: Record<string, string>;
let server: ServeProcess;

beforeAll(async () => {
  [redis, pg] = await Promise.all([startRedis(), startPostgres()]);
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT_FILE);
  await writeFile(join(dir, 'agents/memory.yaml'), MEMORY);
  env = { AGENTCTL_QUEUE_URL: redis.url, DATABASE_URL: await pg.createDatabase('paused') };
  server = await startServe(dir, [], env);
}, 90_000);

afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await pg?.stop();
  await removeTempDirs();
});

describe('a worker paused past its lease while its tool runs', () => {
  it('writes nothing once it wakes: the run another worker took over ends once, its session valid', async () => {
    const first = await startWorker(dir, [], env);
    const started = await fetch(`${server.url}/agents/slow/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'crunch it', sessionId: 'paused-1', async: true }),
    });
    const { runId } = (await started.json()) as { runId: string };
    const stream = liveEvents(await fetch(`${server.url}/runs/${runId}/events`));
    try {
      await stream.waitFor((e) => e.event === 'tool_call', { timeoutMs: 30_000 });
      // process.kill, not child.kill: the latter marks the child killed, and stopWorkers would not kill it.
      process.kill(first.child.pid!, 'SIGSTOP');
      // The tool (a child process) finishes while its worker sleeps; another worker takes the run.
      const second = await startWorker(dir, [], env);
      const end = await stream.waitFor((e) => e.event === 'end', { timeoutMs: 60_000 });
      expect(JSON.parse(end.data)).toMatchObject({ status: 'complete' });
      expect(second.stderr()).toContain(`run ${runId} resumes from its session`);
      process.kill(first.child.pid!, 'SIGCONT');
      // Awake, the first worker finds its lease gone (or, as before, writes and then finds its lock gone).
      await waitFor(
        () => /failed on try 1|Missing lock/.test(first.stderr()),
        'the first worker wakes and lets go of the run',
      );
    } finally {
      process.kill(first.child.pid!, 'SIGCONT');
      await stream.close();
    }
    const rows = await pg.sql(
      "SELECT coalesce(json_agg(event ORDER BY seq), '[]') FROM agentctl_events WHERE session_id = 'paused-1'",
      'paused',
    );
    const events = JSON.parse(rows) as AgentEvent[];
    expect(events.filter((e) => e.type === 'run_end')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(findPairingProblem(historyFor(events, 'slow', new Set()))).toBeUndefined();
  }, 120_000);
});
