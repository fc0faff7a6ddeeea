import { randomUUID } from 'node:crypto';
import { assertSessionId } from '@agentctl/core';
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QueueUnreachableError } from './redis-connection.js';
import { RunEventLog, type RunStreamEntry } from './run-event-log.js';
import { RUN_QUEUE_NAME, type RunJobData, type RunRequest } from './run-job.js';

/** How BullMQ retries a job whose worker failed (not a run that ended in an error). */
export interface RetrySettings {
  /** Tries per job, the first included. Default 3. */
  attempts?: number;
  /** Wait between tries: `fixed` or `exponential` from `delayMs`. Default exponential from 1 s. */
  backoff?: { type: 'fixed' | 'exponential'; delayMs: number };
}

/** Options of {@link RunQueue}: the retries of its jobs, and the project that queues them. */
export interface RunQueueOptions extends RetrySettings {
  /**
   * The project's name, carried by every job: a worker of another project sharing the Redis refuses
   * the job, and a project's schedules are kept apart from another's.
   */
  project?: string;
}

/** Jobs by state, and the workers connected. */
export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  workers: number;
}

/**
 * The producer side of the run queue, for serve nodes and `run --queue`: enqueues runs and reads
 * their events from any node.
 */
export class RunQueue {
  readonly events: RunEventLog;
  readonly #queue: Queue<RunJobData>;
  readonly #jobOptions: JobsOptions;
  readonly #connection: Redis;
  /** The name of the project whose runs this queues, when it has one. */
  readonly project: string | undefined;

  constructor(connection: Redis, retry: RunQueueOptions = {}) {
    this.project = retry.project;
    this.#connection = connection;
    this.events = new RunEventLog(connection);
    this.#queue = new Queue<RunJobData>(RUN_QUEUE_NAME, { connection });
    // While Redis is away ioredis reconnects and commands wait for it; without a listener BullMQ
    // prints every failed reconnect with its stack trace.
    this.#queue.on('error', () => undefined);
    const backoff = retry.backoff ?? { type: 'exponential', delayMs: 1000 };
    this.#jobOptions = {
      attempts: retry.attempts ?? 3,
      backoff: { type: backoff.type, delay: backoff.delayMs },
      removeOnComplete: { age: 24 * 3600, count: 100_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    };
  }

  /** The BullMQ queue (for schedules). */
  get queue(): Queue<RunJobData> {
    return this.#queue;
  }

  /** The options every run job is added with (retries and backoff from the project). */
  get jobOptions(): JobsOptions {
    return this.#jobOptions;
  }

  /** Adds a run to the queue; answers at once with its run id and session id. */
  async enqueue(request: RunRequest): Promise<{ runId: string; sessionId: string }> {
    const runId = randomUUID();
    const sessionId = request.sessionId ?? randomUUID();
    assertSessionId(sessionId);
    // While Redis is away ioredis holds commands and sends them once it is back: a run its caller
    // was told could not be queued would be queued after all. It is refused at once instead.
    this.#assertConnected();
    await this.events.open(runId, { agent: request.agent, sessionId });
    await this.events.turns.queued(sessionId, runId);
    const data: RunJobData = {
      runId,
      agent: request.agent,
      sessionId,
      userId: request.userId,
      input: request.input,
      decisions: request.decisions,
      project: this.project,
    };
    await this.#queue.add('run', data, { ...this.#jobOptions, jobId: runId });
    return { runId, sessionId };
  }

  /** Whether a run of that id was enqueued (and not yet forgotten); refused at once while Redis is away. */
  async exists(runId: string): Promise<boolean> {
    // Held by ioredis until Redis is back, the question would keep its asker waiting for nothing.
    this.#assertConnected();
    return (await this.events.info(runId)) !== undefined;
  }

  /** A run's events from after `after` (a stream id), until its end or `signal`. */
  follow(runId: string, after?: string, signal?: AbortSignal): AsyncGenerator<RunStreamEntry> {
    return this.events.follow(runId, after, signal);
  }

  /** How many jobs wait, run, wait to retry, failed and completed, and how many workers listen; refused at once while Redis is away. */
  async depth(): Promise<QueueDepth> {
    this.#assertConnected();
    const counts = await this.#queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
    return {
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
      workers: await this.#queue.getWorkersCount(),
    };
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }

  #assertConnected(): void {
    if (this.#connection.status !== 'ready')
      throw new QueueUnreachableError(`the queue's Redis is not connected (${this.#connection.status})`);
  }
}
