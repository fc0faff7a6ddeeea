import type { Redis } from 'ioredis';

const KEEP_SECONDS = 7 * 24 * 3600;

// Scores of this process's runs: never lower than the last one, so two runs one node queues in turn
// keep that order even within one millisecond.
let last = 0;

/**
 * The order in which a session's runs were queued (a Redis sorted set per session): a worker takes
 * a session's runs in that order, so a second message sent after the first was queued never runs
 * before it, however many workers take them.
 */
export class SessionTurns {
  readonly #redis: Redis;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  /** Records that `runId` was queued on `sessionId`, after every run queued on it before. */
  async queued(sessionId: string, runId: string): Promise<void> {
    last = Math.max(Date.now(), last + 0.001);
    await this.#redis
      .multi()
      .zadd(turnsKey(sessionId), last, runId)
      .expire(turnsKey(sessionId), KEEP_SECONDS)
      .exec();
  }

  /** The run whose turn it is on `sessionId`: the oldest that has not ended, if any is recorded. */
  async first(sessionId: string): Promise<string | undefined> {
    const [runId] = await this.#redis.zrange(turnsKey(sessionId), '0', '0');
    return runId;
  }

  /** `runId` is over (ended, or found gone): the next run of the session may go. */
  async done(sessionId: string, runId: string): Promise<void> {
    await this.#redis.zrem(turnsKey(sessionId), runId);
  }
}

function turnsKey(sessionId: string): string {
  return `agentctl:session:{${sessionId}}:turns`;
}
