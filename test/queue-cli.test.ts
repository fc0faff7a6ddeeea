import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentctl,
  BIN,
  cliEnv,
  fixtureProject,
  parseNdjson,
  removeTempDirs,
  tempDir,
} from './support/cli.js';
import { freePort } from './support/free-port.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { readSse, type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';
import { startWorker, stopWorkers, type WorkerProcess } from './support/worker.js';

// Queued runs through the real processes: `agentctl worker`, `agentctl serve` with a queue and
// `agentctl run --queue`, on one real redis-server and the file store several processes share.

const PROJECT_FILE = `kind: project
name: queued
queue:
  attempts: 2
  backoff: { type: fixed, delay: 200ms }
  lock_duration: 3s
  stalled_interval: 1s
`;

let redis: RedisProcess;
let dir: string;
let env: Record<string, string>;
let serveA: ServeProcess;
let serveB: ServeProcess;
let worker: WorkerProcess;

async function post(server: ServeProcess, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function events(server: ServeProcess, runId: string, lastEventId?: string) {
  const response = await fetch(`${server.url}/runs/${runId}/events`, {
    headers: lastEventId ? { 'last-event-id': lastEventId } : {},
  });
  expect(response.status).toBe(200);
  return readSse(response);
}

// Reads a run's SSE until `stop` says so, then drops the connection.
async function watchUntil(
  server: ServeProcess,
  runId: string,
  stop: (type: string) => boolean,
): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/runs/${runId}/events`, { signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before the awaited event:\n${text}`);
      text += value;
      const types = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
      if (types.some(stop)) return;
    }
  } finally {
    controller.abort();
  }
}

async function session(id: string) {
  const { stdout, code } = await agentctl(['sessions', 'show', id, '--json'], { cwd: dir, env });
  expect(code).toBe(0);
  return (
    JSON.parse(stdout) as { session: { events: Array<{ id: string; type: string; content?: string }> } }
  ).session;
}

beforeAll(async () => {
  redis = await startRedis();
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT_FILE);
  env = { AGENTCTL_QUEUE_URL: redis.url };
  [serveA, serveB, worker] = await Promise.all([
    startServe(dir, [], env),
    startServe(dir, [], env),
    startWorker(dir, ['--concurrency', '2'], env),
  ]);
}, 90_000);

afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await removeTempDirs();
});

describe('queued runs through the real processes', () => {
  it('run --queue prints the same events as a local run and exits 0', async () => {
    const queued = await agentctl(['run', 'clerk', 'stamp it', '--queue', '--json'], { cwd: dir, env });
    expect(queued.stderr).toMatch(/queued run [0-9a-f-]{36}/);
    expect(queued.stderr).not.toContain('no worker');
    expect(queued.code).toBe(0);
    const local = await agentctl(['run', 'clerk', 'stamp it', '--json'], { cwd: dir, env });
    expect(local.code).toBe(0);
    const types = (out: string) => parseNdjson(out).map((e) => e.type);
    expect(types(queued.stdout)).toEqual(types(local.stdout));
    const text = await agentctl(['run', 'clerk', 'stamp it', '--queue'], { cwd: dir, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('stamp: stamped');
  });

  it('an async run answers 202 on one node and streams its events from the other, resumable', async () => {
    const response = await post(serveA, '/agents/clerk/runs', { input: 'stamp it', async: true });
    expect(response.status).toBe(202);
    const { runId, sessionId } = (await response.json()) as { runId: string; sessionId: string };
    const all = await events(serveB, runId);
    const end = all.at(-1)!;
    expect(end.event).toBe('end');
    expect(JSON.parse(end.data)).toMatchObject({ status: 'complete', sessionId });
    expect(all.every((e) => e.id)).toBe(true);
    const rest = await events(serveA, runId, all[4].id);
    expect(rest.map((e) => e.id)).toEqual(all.slice(5).map((e) => e.id));
    // Every stored event reached the stream once, in the session's order.
    const stored = (await session(sessionId)).events.map((e) => e.id);
    const streamed = all
      .filter((e) => e.event !== 'end' && e.event !== 'text_delta')
      .map((e) => JSON.parse(e.data).id);
    expect(streamed).toEqual(stored);
    const unknown = await fetch(`${serveB.url}/runs/no-such-run/events`);
    expect(unknown.status).toBe(404);
    const doc = (await (await fetch(`${serveB.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain('/runs/{id}/events');
  });

  it('a paused run frees its worker and is approved through the other node', async () => {
    const started = await post(serveA, '/agents/cashier/runs', { input: 'refund A-1', async: true });
    const { runId, sessionId } = (await started.json()) as { runId: string; sessionId: string };
    const first = await events(serveA, runId);
    const end = JSON.parse(first.at(-1)!.data) as {
      status: string;
      pending: Array<{ call: { id: string } }>;
    };
    expect(end.status).toBe('paused');
    // Paused, the run holds no worker: the other jobs go through meanwhile.
    const other = await agentctl(['run', 'clerk', 'meanwhile', '--queue'], { cwd: dir, env });
    expect(other.code).toBe(0);
    const decided = await post(serveB, `/sessions/${sessionId}/decisions`, {
      decisions: [{ callId: end.pending[0].call.id, decision: 'approve' }],
      async: true,
    });
    expect(decided.status).toBe(202);
    const resumed = (await decided.json()) as { runId: string };
    const after = await events(serveB, resumed.runId);
    expect(JSON.parse(after.at(-1)!.data)).toMatchObject({ status: 'complete' });
    const results = (await session(sessionId)).events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.content)).toEqual(['refunded']);
    const again = await post(serveA, `/sessions/${sessionId}/decisions`, {
      decisions: [{ callId: end.pending[0].call.id, decision: 'approve' }],
      async: true,
    });
    expect(again.status).toBe(409);
  });

  it('/health shows the queue depth and the workers listening', async () => {
    const health = (await (await fetch(`${serveB.url}/health`)).json()) as {
      status: string;
      queue: { waiting: number; active: number; workers: number };
    };
    expect(health.status).toBe('ok');
    expect(health.queue.workers).toBeGreaterThanOrEqual(1);
    expect(typeof health.queue.waiting).toBe('number');
  });

  it('a SIGKILLed worker leaves its run to another worker, which resumes it from the session', async () => {
    const started = await post(serveA, '/agents/slow/runs', { input: 'crunch it', async: true });
    const { runId, sessionId } = (await started.json()) as { runId: string; sessionId: string };
    // The only worker takes it; once the tool runs, the worker dies without a word.
    await watchUntil(serveA, runId, (type) => type === 'tool_call');
    await worker.stop('SIGKILL');
    worker = await startWorker(dir, ['--concurrency', '2'], env);
    const all = await events(serveB, runId);
    expect(JSON.parse(all.at(-1)!.data)).toMatchObject({ status: 'complete' });
    expect(worker.stderr()).toContain(`run ${runId} resumes from its session`);
    const stored = (await session(sessionId)).events;
    const results = stored.filter((e) => e.type === 'tool_result');
    // `crunch` is not idempotent: the model is told it was interrupted, it is not run again.
    expect(results).toHaveLength(1);
    expect(results[0].content).toMatch(/^\[interrupted\]/);
    expect(stored.filter((e) => e.type === 'run_end')).toHaveLength(1);
    const streamed = all
      .filter((e) => e.event !== 'end' && e.event !== 'text_delta')
      .map((e) => JSON.parse(e.data).id);
    expect(streamed).toEqual(stored.map((e) => e.id));
  }, 60_000);

  it('SIGTERM lets a running run finish; with no grace left it goes back to the queue', async () => {
    const finishing = await post(serveA, '/agents/slow/runs', { input: 'crunch it', async: true });
    const first = (await finishing.json()) as { runId: string };
    await watchUntil(serveA, first.runId, (type) => type === 'tool_call');
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.stderr()).toContain('stopped: 1 run(s) finished, 0 handed back');
    expect(JSON.parse((await events(serveB, first.runId)).at(-1)!.data)).toMatchObject({
      status: 'complete',
    });

    worker = await startWorker(dir, ['--grace', '0s'], env);
    const handed = await post(serveA, '/agents/slow/runs', { input: 'crunch it', async: true });
    const second = (await handed.json()) as { runId: string; sessionId: string };
    await watchUntil(serveA, second.runId, (type) => type === 'tool_call');
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.stderr()).toContain('stopped: 0 run(s) finished, 1 handed back');
    worker = await startWorker(dir, [], env);
    expect(JSON.parse((await events(serveB, second.runId)).at(-1)!.data)).toMatchObject({
      status: 'complete',
    });
    const stored = (await session(second.sessionId)).events;
    expect(stored.filter((e) => e.type === 'run_end')).toHaveLength(1);
  }, 60_000);

  it('a second SIGTERM ends the grace at once: the run goes back to the queue and another worker ends it', async () => {
    worker = await startWorker(dir, ['--grace', '10m'], env);
    const handed = await post(serveA, '/agents/slow/runs', { input: 'crunch it', async: true });
    const { runId, sessionId } = (await handed.json()) as { runId: string; sessionId: string };
    await watchUntil(serveA, runId, (type) => type === 'tool_call');
    worker.child.kill('SIGTERM');
    await waitFor(() => worker.stderr().includes('shutting down: 1 run(s) in flight'), 'the drain starts');
    worker.child.kill('SIGTERM');
    expect(await worker.stop()).toBe(0);
    expect(worker.stderr()).toContain(
      'second signal: handing the 1 run(s) still in flight back to the queue now',
    );
    expect(worker.stderr()).toContain('stopped: 0 run(s) finished, 1 handed back');
    worker = await startWorker(dir, [], env);
    expect(JSON.parse((await events(serveB, runId)).at(-1)!.data)).toMatchObject({ status: 'complete' });
    expect((await session(sessionId)).events.filter((e) => e.type === 'run_end')).toHaveLength(1);
  }, 60_000);

  it('schedules list shows the schedules a worker registered, with their next run', async () => {
    const listed = await agentctl(['schedules', 'list', '--json'], { cwd: dir, env });
    expect(listed.code).toBe(0);
    const [row] = JSON.parse(listed.stdout) as Array<{ name: string; registered: boolean; next: number }>;
    expect(row).toMatchObject({ name: 'new-year', registered: true });
    // Midnight of January 1st in Paris is 23:00 UTC on December 31st.
    expect(new Date(row.next).toISOString()).toMatch(/-12-31T23:00:00/);
    const text = await agentctl(['schedules', 'list'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: undefined } });
    expect(text.stdout).toMatch(/new-year\s+0 0 1 1 \*\s+Europe\/Paris\s+clerk\s+no queue/);
  });

  it('validate reports a bad cron, time zone or agent of a schedule with its line', async () => {
    const bad = await tempDir('agentctl-schedule-');
    await mkdir(join(bad, 'agents'));
    await writeFile(join(bad, 'agents/clerk.yaml'), await readFile(join(dir, 'agents/agents.yaml'), 'utf8'));
    await writeFile(
      join(bad, 'agents/bad.yaml'),
      'kind: schedule\nname: bad\ncron: "61 * * * *"\ntimezone: Mars/Olympus\nagent: clerkk\ninput: x\n',
    );
    const result = await agentctl(['validate'], { cwd: bad });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'agents/bad.yaml:3:7: error: invalid cron pattern "61 * * * *"',
    );
    expect(result.stdout + result.stderr).toContain(
      'agents/bad.yaml:4:11: error: unknown time zone "Mars/Olympus"',
    );
    expect(result.stdout + result.stderr).toContain(
      'agents/bad.yaml:5:8: error: agent `clerkk` is not defined',
    );
  });

  it('run --queue on a queue no worker listens to says so, and the run goes on once one starts', async () => {
    const empty = await startRedis();
    let child: ReturnType<typeof spawn> | undefined;
    try {
      const alone = { AGENTCTL_QUEUE_URL: empty.url };
      child = spawn(process.execPath, [BIN, 'run', 'clerk', 'stamp it', '--queue'], {
        cwd: dir,
        env: cliEnv(alone),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let stdout = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      const exited = new Promise<number | null>((done) => child!.on('close', done));
      await waitFor(() => stderr.includes('no worker is listening'), 'the word that no worker listens');
      expect(stderr).toContain('`agentctl worker`');
      await startWorker(dir, [], alone);
      expect(await exited).toBe(0);
      expect(stdout).toContain('stamp: stamped');
    } finally {
      if (child?.exitCode === null) child.kill('SIGKILL');
      await empty.stop();
    }
  });

  it('a worker without a queue URL is a usage error', async () => {
    const result = await agentctl(['worker'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: undefined } });
    // The project names no queue.url, so nothing says where the queue is.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('AGENTCTL_QUEUE_URL');
    const run = await agentctl(['run', 'clerk', 'x', '--queue'], {
      cwd: dir,
      env: { AGENTCTL_QUEUE_URL: undefined },
    });
    expect(run.code).toBe(2);
  });

  it('a queue that is not a Redis URL is bad usage; one that does not answer fails at once, naming it', async () => {
    const bad = await agentctl(['run', 'clerk', 'x', '--queue'], {
      cwd: dir,
      env: { AGENTCTL_QUEUE_URL: 'http://x' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must start with redis://');
    const nobody = `redis://127.0.0.1:${await freePort()}`;
    const [worker, run] = await Promise.all([
      agentctl(['worker'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: nobody } }),
      agentctl(['run', 'clerk', 'x', '--queue'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: nobody } }),
    ]);
    for (const result of [worker, run]) {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`agentctl: cannot reach the queue at ${nobody}`);
      expect(result.stderr).not.toContain('    at ');
    }
  });
});
