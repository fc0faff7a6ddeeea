import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { startServe, stopServers } from './support/serve.js';

// docs/deploy.md: `GET /health` shows the queue beside the node's status, `503` with the reason
// when Redis cannot be reached, as a load balancer's health check needs: an answer, not a hang.

let redis: RedisProcess;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await stopServers();
  await redis?.stop();
  await removeTempDirs();
});

describe('agentctl serve with a queue, GET /health', () => {
  it('shows the queue while Redis answers, and a 503 with the reason soon after it is gone', async () => {
    const server = await startServe(await fixtureProject('queue'), [], { AGENTCTL_QUEUE_URL: redis.url });
    const up = await fetch(`${server.url}/health`);
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ status: 'ok', queue: { waiting: 0, workers: 0 } });

    await redis.stop();
    // A generous bound for a loaded machine; without one the request waited for Redis forever.
    const down = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(20_000) });
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      status: 'degraded',
      // At once once the node has seen Redis go (a ref to the log's line); before, after the wait.
      queue: {
        error: expect.stringMatching(
          /^(the queue failed \(ref [0-9a-f]{12}\)|the queue did not answer within 5000 ms)$/,
        ),
      },
    });
  });
});
