import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type RedisProcess, startRedis } from '../../../../test/support/redis.js';
import { connectRedis } from '../../src/index.js';

/**
 * Starts a real redis-server for the test file (stopped after it) and returns `connect()`, which
 * opens a connection to it that is closed after the file.
 */
export function useRedis(): { connect(): Promise<Redis> } {
  let redis: RedisProcess;
  const connections: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of connections) c.disconnect();
    await redis?.stop();
  });
  return {
    async connect() {
      const c = await connectRedis(redis.url);
      connections.push(c);
      return c;
    },
  };
}
