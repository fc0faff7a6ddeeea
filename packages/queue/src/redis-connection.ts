import { Redis } from 'ioredis';

/** A queue URL that is not a Redis URL: the user's mistake, not the server's. */
export class QueueUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Redis could not be reached within the connect timeout. */
export class QueueUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Connects to the Redis of a queue URL (`redis://[user:pass@]host:port[/db]`) and resolves once it
 * answers, or rejects within `timeoutMs` naming the URL without its password. Once connected, a
 * lost connection is retried by ioredis in the background; blocking commands and BullMQ's workers
 * need `maxRetriesPerRequest: null`, so every connection is made that way.
 */
export async function connectRedis(url: string, options: { timeoutMs?: number } = {}): Promise<Redis> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QueueUrlError(
      `the queue URL ${JSON.stringify(shown(url))} is not a URL (expected redis://HOST:PORT)`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new QueueUrlError(`the queue URL must start with redis:// or rediss://, not ${parsed.protocol}//`);
  }
  // ioredis passes any path on as the database, and a SELECT it refuses only surfaces later, as
  // unhandled errors of the connections made from this one.
  const path = parsed.pathname.replace(/^\/$/, '');
  if (path !== '' && !/^\/\d+$/.test(path)) {
    throw new QueueUrlError(
      `the queue URL ${JSON.stringify(shown(url))} names the database "${decodeURIComponent(path.slice(1))}": after HOST:PORT comes a database number (redis://HOST:PORT/0) or nothing`,
    );
  }
  const db = path === '' ? undefined : Number(path.slice(1));
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true });
  let last: unknown;
  // Errors while reconnecting are ioredis's to retry; keeping the last one names the cause.
  redis.on('error', (error) => {
    last = error;
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => (db === undefined ? undefined : redis.select(db))),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return redis;
  } catch (error) {
    redis.disconnect();
    const cause =
      db !== undefined && /DB index/i.test((error as Error).message)
        ? `it has no database ${db} (${(error as Error).message})`
        : ((last as Error | undefined)?.message ?? (error as Error).message);
    throw new QueueUnreachableError(`cannot reach the queue at ${shown(url)}: ${cause}`);
  } finally {
    clearTimeout(timer);
  }
}

// The URL as it may be shown: without its password.
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
