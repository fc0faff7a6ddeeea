import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

// docs/serve.md and docs/deploy.md: while the queue's Redis is away, requests that need it are
// answered `503 queue_unavailable` with Retry-After (not held until Redis is back), a run refused so
// is not queued behind the caller's back once Redis returns, and serve recovers by itself.

let redis: RedisProcess | undefined;
let server: ServeProcess;

beforeAll(async () => {
  redis = await startRedis();
  server = await startServe(await fixtureProject('queue'), [], { AGENTCTL_QUEUE_URL: redis.url });
}, 60_000);
afterAll(async () => {
  await stopServers();
  if (redis && redis.child.exitCode === null) redis.child.kill('SIGCONT');
  await redis?.stop();
  await removeTempDirs();
});

// A generous bound for a loaded machine: without the fix these requests waited for Redis forever.
const bound = () => ({ signal: AbortSignal.timeout(20_000) });

function enqueue(): Promise<Response> {
  return fetch(`${server.url}/agents/clerk/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'stamp it', async: true }),
    signal: AbortSignal.timeout(20_000),
  });
}

async function depth(): Promise<{ waiting: number } | undefined> {
  const response = await fetch(`${server.url}/health`, bound());
  const body = (await response.json()) as { queue: { waiting: number } };
  return response.status === 200 ? body.queue : undefined;
}

describe('agentctl serve while the queue is away', () => {
  it('answers 503 queue_unavailable with Retry-After, queues nothing behind the caller, and recovers by itself', async () => {
    const queued = await enqueue();
    expect(queued.status).toBe(202);
    const { runId } = (await queued.json()) as { runId: string };

    const port = redis!.port;
    await redis!.stop();
    // Once the server has seen Redis go (its client no longer connected; /health says so), a run is
    // refused at once: before, a command may still wait out the 5 s bound, the next test's case.
    for (let i = 0; i < 40 && (await fetch(`${server.url}/health`, bound())).status !== 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const refused = await enqueue();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('queue_unavailable');
    // What Redis said is the operator's: the client gets a ref the log has.
    const ref = /\(ref ([0-9a-f]{12})\)/.exec(body.error.message)?.[1];
    expect(ref).toBeDefined();
    // The log line reaches the server's stderr pipe on its own time, maybe after the answer.
    await waitFor(() => server.stderr().includes(`(ref ${ref})`), 'the ref in the server log');
    // So is /health, which said so only after waiting out the same bound.
    const health = await fetch(`${server.url}/health`, bound());
    expect(health.status).toBe(503);
    expect(((await health.json()) as { queue: { error: string } }).queue.error).toMatch(
      /^the queue failed \(ref /,
    );
    // A follower is refused as promptly: before, it waited out the 5 s bound for a Redis known to be away.
    const events = await fetch(`${server.url}/runs/${runId}/events`, bound());
    expect(events.status).toBe(503);
    expect(events.headers.get('retry-after')).toBe('5');
    const refusal = ((await events.json()) as { error: { code: string; message: string } }).error;
    expect(refusal.code).toBe('queue_unavailable');
    expect(refusal.message).toMatch(/^the queue failed \(ref [0-9a-f]{12}\)$/);
    const eventsRef = /\(ref ([0-9a-f]{12})\)/.exec(refusal.message)?.[1];
    await waitFor(
      () => server.stderr().includes(`(ref ${eventsRef}): the queue's Redis is not connected`),
      'the follower refusal in the server log',
    );

    // Back (empty: this Redis keeps nothing on disk), the refused run was not queued after all.
    redis = await startRedis(port);
    let seen: { waiting: number } | undefined;
    for (let i = 0; i < 40 && !seen; i++) {
      seen = await depth();
      if (!seen) await new Promise((r) => setTimeout(r, 250));
    }
    expect(seen).toMatchObject({ waiting: 0 });
    expect((await enqueue()).status).toBe(202);
    expect(await depth()).toMatchObject({ waiting: 1 });
  });

  it('answers 503 once Redis holds its answer past the wait, instead of waiting with it', async () => {
    // Every connection of the server is back from the last test's outage before Redis freezes.
    for (let i = 0; i < 40 && !(await depth()); i++) await new Promise((r) => setTimeout(r, 250));
    expect((await enqueue()).status).toBe(202);
    redis!.child.kill('SIGSTOP');
    try {
      const refused = await enqueue();
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({
        error: { code: 'queue_unavailable', message: 'the queue did not answer within 5000 ms' },
      });
    } finally {
      redis!.child.kill('SIGCONT');
    }
  });
});
