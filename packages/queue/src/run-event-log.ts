import type { AgentEvent } from '@agentctl/core';
import type { Redis } from 'ioredis';
import type { RunEnd } from './run-job.js';
import { SessionTurns } from './session-turns.js';

/** One entry of a run's event stream: an event, or the end of the run. */
export interface RunStreamEntry {
  /** The Redis stream id: ordered, usable as an SSE id and a `Last-Event-ID`. */
  id: string;
  event?: AgentEvent;
  end?: RunEnd;
}

const KEEP_SECONDS = 7 * 24 * 3600;

// Adds an entry only when its id was never added: the set makes a republished event a no-op, so
// a worker that takes over a run can publish what the session holds without duplicating anything.
const PUBLISH_ONCE = `
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return false end
redis.call('EXPIRE', KEYS[2], ARGV[4])
local id = redis.call('XADD', KEYS[1], '*', ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return id
`;

type Publisher = Redis & {
  agentctlPublishOnce(
    stream: string,
    ids: string,
    id: string,
    field: string,
    json: string,
    ttl: number,
  ): Promise<string | null>;
};

/**
 * The events of queued runs in Redis streams (one per run), shared by every serve node and worker:
 * workers publish each event once (deduplicated by event id), any node reads them in order from
 * any point.
 */
export class RunEventLog {
  readonly #redis: Publisher;
  /** The order of each session's runs, which an end moves on. */
  readonly turns: SessionTurns;

  constructor(redis: Redis) {
    this.turns = new SessionTurns(redis);
    if (!('agentctlPublishOnce' in redis)) {
      redis.defineCommand('agentctlPublishOnce', { numberOfKeys: 2, lua: PUBLISH_ONCE });
    }
    this.#redis = redis as Publisher;
  }

  /** Records that a run exists (so readers can tell an unknown run from one not started yet). */
  async open(runId: string, info: { agent: string; sessionId: string }): Promise<void> {
    await this.#redis.set(metaKey(runId), JSON.stringify(info), 'EX', KEEP_SECONDS);
  }

  /** What {@link open} recorded, or undefined for an unknown run. */
  async info(runId: string): Promise<{ agent: string; sessionId: string } | undefined> {
    const raw = await this.#redis.get(metaKey(runId));
    return raw ? (JSON.parse(raw) as { agent: string; sessionId: string }) : undefined;
  }

  /** Publishes events in order; any already published (same id) are skipped. */
  async publish(runId: string, events: readonly AgentEvent[]): Promise<void> {
    if (events.length === 0) return;
    const pipeline = this.#redis.pipeline() as unknown as Publisher;
    for (const event of events) {
      void pipeline.agentctlPublishOnce(
        streamKey(runId),
        idsKey(runId),
        event.id,
        'event',
        JSON.stringify(event),
        KEEP_SECONDS,
      );
    }
    const results = (await (pipeline as unknown as ReturnType<Redis['pipeline']>).exec()) ?? [];
    for (const [error] of results) if (error) throw error;
  }

  /** Publishes the end of a run (once); the next run queued on its session may then go. */
  async end(runId: string, end: RunEnd): Promise<void> {
    await this.#redis.agentctlPublishOnce(
      streamKey(runId),
      idsKey(runId),
      '#end',
      'end',
      JSON.stringify(end),
      KEEP_SECONDS,
    );
    if (end.sessionId) await this.turns.done(end.sessionId, runId);
  }

  /** The end of a run if it was published. */
  async ending(runId: string): Promise<RunEnd | undefined> {
    for (const entry of await this.entries(runId)) if (entry.end) return entry.end;
    return undefined;
  }

  /** Every entry published so far. */
  async entries(runId: string, after = '-'): Promise<RunStreamEntry[]> {
    const start = after === '-' ? '-' : `(${after}`;
    const rows = (await this.#redis.xrange(streamKey(runId), start, '+')) as [string, string[]][];
    return rows.map(toEntry);
  }

  // The run's end entry when it was published at or before `id`: nothing will ever come after it.
  async #endAtOrBefore(runId: string, id: string): Promise<RunStreamEntry | undefined> {
    const rows = (await this.#redis.xrevrange(streamKey(runId), '+', '-', 'COUNT', 1)) as [
      string,
      string[],
    ][];
    const last = rows[0] && toEntry(rows[0]);
    return last?.end && compareIds(last.id, id) <= 0 ? last : undefined;
  }

  /**
   * Reads a run's entries after `after` (a stream id; default: from the start), waiting for new
   * ones, until the end entry (included) or `signal` aborts. Uses its own connection while it blocks.
   */
  async *follow(runId: string, after = '0-0', signal?: AbortSignal): AsyncGenerator<RunStreamEntry> {
    const reader = this.#redis.duplicate();
    // A lost connection is retried and the blocked read waits for it; unheard, ioredis would print
    // each failed reconnect with its stack trace.
    reader.on('error', () => undefined);
    const stop = () => reader.disconnect();
    signal?.addEventListener('abort', stop, { once: true });
    let cursor = after;
    try {
      // A reader resuming at or past the end (an EventSource reconnects once a stream closes) is
      // told the end again, rather than waiting for entries that will never come.
      const passedEnd = await this.#endAtOrBefore(runId, after);
      if (passedEnd) {
        yield passedEnd;
        return;
      }
      const sessionId = (await this.info(runId))?.sessionId ?? '';
      while (!signal?.aborted) {
        const reply = (await untilAborted(
          reader
            .xread('COUNT', 500, 'BLOCK', 5000, 'STREAMS', streamKey(runId), cursor)
            .catch((error: unknown) => {
              if (signal?.aborted) return null;
              throw error;
            }),
          signal,
        )) as [string, [string, string[]][]][] | null;
        if (!reply) {
          // Stopped: asking anything more could wait forever for a Redis that is away.
          if (signal?.aborted) break;
          // Nothing new for a while: the run may have ended before the cursor (an id from the future).
          const ended = await this.#endAtOrBefore(runId, cursor);
          if (ended) {
            yield ended;
            return;
          }
          // Redis lost the run (restarted without persistence, flushed, or evicting keys): nothing
          // will ever come, and nothing will run it. The reader is told, not kept waiting.
          if (!(await this.info(runId))) {
            yield { id: cursor, end: lostRun(runId, sessionId) };
            return;
          }
          continue;
        }
        for (const row of reply[0][1]) {
          const entry = toEntry(row);
          cursor = entry.id;
          yield entry;
          if (entry.end) return;
        }
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      reader.disconnect();
    }
  }
}

// The end a follower gets for a run whose keys Redis no longer has.
function lostRun(runId: string, sessionId: string): RunEnd {
  return {
    status: 'error',
    sessionId,
    code: 'INTERNAL_ERROR',
    message: `the queue no longer has run ${runId}: its Redis lost it (restarted without persistence, flushed, or evicting keys); the run will not go on, and its session holds what it did`,
  };
}

// A read queued while Redis is away is never rejected by the reader's disconnect: an abort
// settles it with null instead.
function untilAborted<T>(read: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  if (!signal) return read;
  if (signal.aborted) return Promise.resolve(null);
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([read, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** Compares two stream ids (`ms-seq`, or `ms` alone) by their place in a stream. */
function compareIds(a: string, b: string): number {
  const [am, as = '0'] = a.split('-');
  const [bm, bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  const diff = ms !== 0n ? ms : BigInt(as) - BigInt(bs);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

function toEntry([id, fields]: [string, string[]]): RunStreamEntry {
  const [field, json] = fields;
  return field === 'end'
    ? { id, end: JSON.parse(json) as RunEnd }
    : { id, event: JSON.parse(json) as AgentEvent };
}

function metaKey(runId: string): string {
  return `agentctl:run:{${runId}}`;
}

function streamKey(runId: string): string {
  return `agentctl:run:{${runId}}:events`;
}

function idsKey(runId: string): string {
  return `agentctl:run:{${runId}}:ids`;
}
