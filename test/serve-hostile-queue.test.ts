import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { readSse, type ServeProcess, startServe, stopServers } from './support/serve.js';
import { startWorker, stopWorkers } from './support/worker.js';

// A hostile client of a queued run's event stream on the real `agentctl serve` and `agentctl worker`
// over one real redis-server: a resume id that is not one, and a resume after the end.
let redis: RedisProcess;
let server: ServeProcess;

beforeAll(async () => {
  redis = await startRedis();
  const dir = await fixtureProject('serve');
  const env = { AGENTCTL_QUEUE_URL: redis.url };
  server = await startServe(dir, [], env);
  await startWorker(dir, [], env);
}, 60_000);
afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await removeTempDirs();
});

// What a stream that never answers resolves to here, so a hang fails the test with a reason.
const HUNG = 'no answer within 20 s';
const bounded = <T>(promise: Promise<T>): Promise<T | typeof HUNG> =>
  Promise.race([promise, new Promise<typeof HUNG>((r) => setTimeout(() => r(HUNG), 20_000).unref())]);

async function queuedRun(): Promise<string> {
  const response = await fetch(`${server.url}/agents/echo/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'queued hello', async: true }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { runId: string }).runId;
}

const events = (runId: string, headers: Record<string, string> = {}, query = '') =>
  fetch(`${server.url}/runs/${runId}/events${query}`, { headers });

describe('agentctl serve: hostile readers of a queued run', () => {
  it('a Last-Event-ID or ?after= that is no event id is a 400 naming it, before any stream', async () => {
    const runId = await queuedRun();
    for (const id of ['garbage', '-', '+', '99999999999999999999-0', '1-2-3']) {
      const response = await events(runId, { 'last-event-id': id });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('bad_request');
      expect(error.message).toContain('Last-Event-ID must be the id of an event');
    }
    const query = await events(runId, {}, '?after=x');
    expect(query.status).toBe(400);
    expect(((await query.json()) as { error: { message: string } }).error.message).toContain('?after=');
    expect(server.stderr()).not.toContain('ReplyError');
  });

  it('resuming after the end event (what an EventSource does when the stream closes) gets the end again at once', async () => {
    const runId = await queuedRun();
    const all = await readSse(await events(runId));
    const end = all.at(-1)!;
    expect(end.event).toBe('end');
    expect(JSON.parse(end.data)).toMatchObject({ status: 'complete', output: 'queued hello' });
    for (const after of [end.id!, '18446744073709551615']) {
      const again = await bounded(events(runId, { 'last-event-id': after }).then(readSse));
      expect(again).not.toBe(HUNG);
      expect(again).toEqual([end]);
    }
    // From an earlier event, the rest of the stream as before.
    const rest = await readSse(await events(runId, { 'last-event-id': all.at(-3)!.id! }));
    expect(rest).toEqual(all.slice(-2));
  });

  it('SIGTERM ends a follower of a run still going cleanly, at once; the run goes on in the queue', async () => {
    const dir = await fixtureProject('serve');
    const leaving = await startServe(dir, [], { AGENTCTL_QUEUE_URL: redis.url });
    const response = await fetch(`${leaving.url}/agents/slow/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'nap', async: true }),
    });
    const { runId } = (await response.json()) as { runId: string };
    const follower = await fetch(`${leaving.url}/runs/${runId}/events`);
    expect(follower.status).toBe(200);
    const body = bounded(follower.text());
    leaving.child.kill('SIGTERM');
    // Left open, it would last until the server's last moment: cut then ("terminated"), or outlived
    // by this one-second run.
    const text = await body;
    expect(text).not.toBe(HUNG);
    expect(text).not.toContain('event: end');
    expect(await leaving.stop()).toBe(0);
    // The run was not this node's to end: another node streams it to its end.
    const rest = await bounded(events(runId).then(readSse));
    expect(rest).not.toBe(HUNG);
    expect(JSON.parse((rest as Awaited<ReturnType<typeof readSse>>).at(-1)!.data)).toMatchObject({
      status: 'complete',
    });
  });
});
