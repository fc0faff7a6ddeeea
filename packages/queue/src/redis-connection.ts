import { Redis } from 'ioredis';

/**
 * A Redis connection for a queue URL (`redis://[user:pass@]host:port[/db]`). Blocking commands
 * and BullMQ's workers need `maxRetriesPerRequest: null`, so every connection is made that way.
 */
export function redisConnection(url: string): Redis {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`the queue URL ${JSON.stringify(url)} is not a URL (expected redis://host:port)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new TypeError(`the queue URL must start with redis:// or rediss://, got ${parsed.protocol}//`);
  }
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
}
