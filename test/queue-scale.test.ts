import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentEvent, findPairingProblem, historyFor } from '../packages/core/src/index.js';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { readSse, type ServeProcess, type SseEvent, startServe, stopServers } from './support/serve.js';
import { startWorker, stopWorkers, type WorkerProcess } from './support/worker.js';

// The deployment of docs/deploy.md in small: 2 `serve` + 3 `worker` processes on one Redis and
// one PostgreSQL (real servers on loopback), 300 queued runs with tool calls, one worker SIGKILLed
// mid-run. Nothing waits on the clock: the worker is killed once it is known to be inside a tool
// (its stamps are held there on a file's word), and what settles after the runs' streams end (the
// queue's counts, the workers' logs) is waited for, not read at one moment.

const RUNS = 300;

const PROJECT_FILE = `kind: project
name: scale
defaults: { memory: shared }
queue:
  attempts: 3
  backoff: { type: fixed, delay: 200ms }
  lock_duration: 3s
  stalled_interval: 1s
`;

const MEMORY = `kind: memory
name: shared
backend: postgres
url: \${DATABASE_URL}
`;

let redis: RedisProcess;
let postgres: TestPostgres;
let dir: string;
let serves: ServeProcess[];
let workers: WorkerProcess[];

async function post(server: ServeProcess, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function streamOf(server: ServeProcess, runId: string): Promise<SseEvent[]> {
  const response = await fetch(`${server.url}/runs/${runId}/events`);
  expect(response.status).toBe(200);
  return readSse(response);
}

async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T, i: number) => Promise<R>) {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size)
    out.push(...(await Promise.all(items.slice(i, i + size).map((item, j) => fn(item, i + j)))));
  return out;
}

async function health(server: ServeProcess) {
  return (await (await fetch(`${server.url}/health`)).json()) as {
    queue: { completed: number; active: number; waiting: number; workers: number };
  };
}

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT_FILE);
  await writeFile(join(dir, 'agents/memory.yaml'), MEMORY);
  // The stamp of a worker with a hold file (hold-<its pid>) waits inside the tool, saying so
  // (held-<its pid>), until the file goes: the test kills that worker while it surely runs a tool.
  const agents = join(dir, 'agents/agents.yaml');
  const stamp = '  argv: [sh, -c, "sleep 0.2; echo stamped"]\n';
  const held = `  argv: [sh, -c, 'while [ -e "$STAMP_DIR/hold-$PPID" ]; do touch "$STAMP_DIR/held-$PPID"; sleep 0.05; done; sleep 0.2; echo stamped']\n  env: [STAMP_DIR]\ntimeout: 10m\n`;
  const yaml = await readFile(agents, 'utf8');
  expect(yaml).toContain(stamp);
  await writeFile(agents, yaml.replace(stamp, held));
  const env = {
    AGENTCTL_QUEUE_URL: redis.url,
    DATABASE_URL: await postgres.createDatabase('scale'),
    STAMP_DIR: dir,
  };
  const started = await Promise.all([
    startServe(dir, [], env),
    startServe(dir, [], env),
    ...[0, 1, 2].map(() => startWorker(dir, ['--concurrency', '4'], env)),
  ]);
  serves = started.slice(0, 2) as ServeProcess[];
  workers = started.slice(2) as WorkerProcess[];
}, 90_000);

afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await postgres?.stop();
  await removeTempDirs();
});

describe('2 serve + 3 worker processes', () => {
  it('300 queued runs complete exactly once through a worker SIGKILL, every event streamed once', async () => {
    // A run that pauses for approval, to be approved through the other node at the end.
    const paused = (await (
      await post(serves[0], '/agents/cashier/runs', { input: 'refund A-1', async: true })
    ).json()) as {
      runId: string;
      sessionId: string;
    };
    const inputs = Array.from({ length: RUNS }, (_, i) => `form ${i}`);
    const queued = await inBatches(inputs, 25, async (input, i) => {
      const response = await post(serves[i % 2], '/agents/clerk/runs', { input, async: true });
      expect(response.status).toBe(202);
      return (await response.json()) as { runId: string; sessionId: string };
    });
    // Mid-way, one worker dies without a word while it runs a tool.
    await eventually(async () => (await health(serves[1])).queue.completed >= RUNS / 4);
    const victim = workers[1].child.pid;
    await writeFile(join(dir, `hold-${victim}`), '');
    await eventually(() =>
      access(join(dir, `held-${victim}`)).then(
        () => true,
        () => false,
      ),
    );
    await workers[1].stop('SIGKILL');
    // Its tools' processes (a process group of their own) outlive it: they finish and go.
    await rm(join(dir, `hold-${victim}`));

    const pausedStream = await streamOf(serves[1], paused.runId);
    const pausedEnd = JSON.parse(pausedStream.at(-1)!.data) as {
      status: string;
      pending: Array<{ call: { id: string } }>;
    };
    expect(pausedEnd.status).toBe('paused');
    const decided = await post(serves[1], `/sessions/${paused.sessionId}/decisions`, {
      decisions: [{ callId: pausedEnd.pending[0].call.id, decision: 'approve' }],
      async: true,
    });
    expect(decided.status).toBe(202);
    const resumed = (await decided.json()) as { runId: string };

    const streams = await inBatches(queued, 20, (run, i) => streamOf(serves[(i + 1) % 2], run.runId));
    for (const [i, stream] of streams.entries()) {
      const ends = stream.filter((e) => e.event === 'end');
      expect(ends, `run ${i}`).toHaveLength(1);
      expect(JSON.parse(ends[0].data), `run ${i}`).toMatchObject({ status: 'complete' });
    }
    // Every session valid; every stored event streamed once, in order; one completion per run.
    const sessions = await inBatches(queued, 20, async (run) => {
      const response = await fetch(`${serves[0].url}/sessions/${run.sessionId}`);
      return (await response.json()) as { events: AgentEvent[]; paused: boolean };
    });
    for (const [i, session] of sessions.entries()) {
      const stored = session.events;
      expect(session.paused).toBe(false);
      expect(new Set(stored.map((e) => e.id)).size, `session ${i}`).toBe(stored.length);
      const shape = stored.map(
        (e) =>
          `${e.id.split('.').slice(1).join('.')}:${e.type}${e.type === 'message' ? `/${e.message.role}` : ''}`,
      );
      expect(
        findPairingProblem(historyFor(stored, 'clerk', new Set())),
        `session ${i}: ${shape.join(' ')}`,
      ).toBeUndefined();
      const ends = stored.filter((e) => e.type === 'run_end');
      expect(
        ends.map((e) => e.type === 'run_end' && e.status),
        `session ${i}`,
      ).toEqual(['complete']);
      expect(
        stored.filter((e) => e.type === 'tool_result'),
        `session ${i}`,
      ).toHaveLength(1);
      const streamed = streams[i]
        .filter((e) => e.event !== 'end' && e.event !== 'text_delta')
        .map((e) => (JSON.parse(e.data) as AgentEvent).id);
      expect(streamed, `run ${i}`).toEqual(stored.map((e) => e.id));
    }
    const interrupted = sessions.filter((s) =>
      s.events.some((e) => e.type === 'tool_result' && e.content.startsWith('[interrupted]')),
    );
    // The runs the killed worker held inside their tool were taken over; their logs come on their own pipe.
    expect(interrupted.length).toBeGreaterThan(0);
    const recovered = () =>
      workers
        .map((w) => w.stderr())
        .join('')
        .match(/resumes from its session/g) ?? [];
    await eventually(async () => recovered().length >= interrupted.length);

    const approved = await streamOf(serves[0], resumed.runId);
    expect(JSON.parse(approved.at(-1)!.data)).toMatchObject({ status: 'complete' });
    // A run's end is streamed before the queue counts its job complete: the counts are waited for
    // (a count past RUNS + 2, a run done twice, still fails below).
    await eventually(async () => {
      const { queue } = await health(serves[0]);
      return queue.completed >= RUNS + 2 && queue.active + queue.waiting === 0;
    });
    const final = await health(serves[0]);
    expect(final.queue.completed).toBe(RUNS + 2);
    expect(final.queue.active + final.queue.waiting).toBe(0);
  }, 110_000);
});

// Resolves once `check` holds, asking every 50 ms (the test's timeout bounds the wait).
async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}
