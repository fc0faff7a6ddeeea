import {
  type Agent,
  AgentError,
  type HeldSession,
  holdSession,
  type InvocationResult,
  isAgentError,
  Runner,
  SessionBusyError,
  type SessionStore,
  sleep,
  UsageError,
} from '@agentctl/core';
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { DetachedRunError, PublishingStore } from './publishing-store.js';
import { RunEventLog } from './run-event-log.js';
import { RUN_QUEUE_NAME, type RunEnd, type RunJobData } from './run-job.js';
import { planRun } from './run-plan.js';

/** An agent to run a job with, held until `release`. */
export interface WorkerAgentLease {
  agent: Agent;
  store: SessionStore;
  release(): void;
}

/** Options of {@link RunWorker}. */
export interface RunWorkerOptions {
  /** The Redis connection jobs are taken from (BullMQ duplicates it for blocking reads). */
  connection: Redis;
  /** The agent a job names, or undefined when the project has none by that name. */
  agents(name: string): WorkerAgentLease | undefined;
  /** Jobs run at once in this process. Default 1. */
  concurrency?: number;
  /**
   * Milliseconds a job's lock lasts without renewal: a worker that stops renewing it (killed) has
   * its job moved back to the queue once it runs out. Also the session lease of each run. Default 30 s.
   */
  lockDurationMs?: number;
  /** Milliseconds between checks for stalled jobs. Default: BullMQ's (30 s). */
  stalledIntervalMs?: number;
  /** Times a job may stall (its worker die) before it fails. Default 3. */
  maxStalledCount?: number;
  /** Milliseconds a run may take before it ends as TIMEOUT. */
  runTimeoutMs?: number;
  /** The project's name: a job another project queued on the same Redis is refused, not run. */
  project?: string;
  /** Receives one line per job event (taken, ended, handed back). */
  log?(line: string): void;
}

/**
 * A worker of the run queue: takes jobs, runs each through the one executor (`Runner`) on the
 * project's session store, publishes its events to the run's stream once stored, and picks up
 * where a stopped worker left off (from the session, see {@link planRun}).
 */
export class RunWorker {
  readonly #options: RunWorkerOptions;
  readonly #log: RunEventLog;
  readonly #worker: Worker<RunJobData, RunEnd>;
  // For the state of another run of a session (whether its turn is over).
  readonly #queue: Queue<RunJobData, RunEnd>;
  readonly #active = new Map<string, RunSlot>();
  #handingBack = false;

  constructor(options: RunWorkerOptions) {
    this.#options = options;
    this.#log = new RunEventLog(options.connection);
    this.#queue = new Queue<RunJobData, RunEnd>(RUN_QUEUE_NAME, { connection: options.connection });
    this.#queue.on('error', () => undefined);
    this.#worker = new Worker<RunJobData, RunEnd>(RUN_QUEUE_NAME, (job, token) => this.#process(job, token), {
      connection: options.connection,
      concurrency: options.concurrency ?? 1,
      lockDuration: options.lockDurationMs ?? 30_000,
      ...(options.stalledIntervalMs !== undefined && { stalledInterval: options.stalledIntervalMs }),
      maxStalledCount: options.maxStalledCount ?? 3,
      autorun: false,
    });
    this.#worker.on('error', (error) => options.log?.(`worker error: ${error.message}`));
    // A job that lost its worker more than `maxStalledCount` times is failed by BullMQ without
    // reaching #process, so nothing else would end its stream and its followers would wait forever.
    this.#worker.on('failed', (job) => {
      if (job)
        void this.#endFailed(job).catch((error: unknown) => options.log?.(`worker error: ${String(error)}`));
    });
  }

  /** Starts taking jobs; resolves once the worker is connected. */
  async start(): Promise<void> {
    void this.#worker
      .run()
      .catch((error: unknown) => this.#options.log?.(`worker stopped: ${String(error)}`));
    await this.#worker.waitUntilReady();
  }

  /** Jobs running now. */
  get active(): number {
    return this.#active.size;
  }

  /**
   * Stops taking jobs, lets the running ones finish for `graceMs` (less if `hurry` aborts), then
   * hands the rest back to the queue as they are: another worker continues them from their sessions.
   */
  async close(
    graceMs: number,
    hurry?: AbortSignal,
  ): Promise<{ finished: number; handedBack: number; unreachable?: true }> {
    const before = this.#active.size;
    const closing = this.#worker.close();
    await settledWithin(closing, graceMs, hurry);
    const handedBack = this.#active.size;
    this.#handingBack = true;
    for (const run of this.#active.values()) {
      run.store?.detach();
      run.controller.abort(
        new AgentError('the worker is shutting down; the run goes back to the queue', 'ABORTED'),
      );
    }
    // BullMQ's close waits for Redis to answer, forever while it is away: past a bound the worker
    // lets go, and the runs it could not hand back move on once their locks lapse.
    if (!(await settledWithin(closing, CLOSE_WAIT_MS))) {
      void this.#worker.disconnect().catch(() => undefined);
      return { finished: before - handedBack, handedBack, unreachable: true };
    }
    await closing;
    await this.#queue.close();
    return { finished: before - handedBack, handedBack };
  }

  // Publishes the end of a job BullMQ failed for good. An end #process already published stays:
  // the end is published once per run.
  async #endFailed(job: Job<RunJobData, RunEnd>): Promise<void> {
    if ((await job.getState()) !== 'failed') return;
    const stalled = job.failedReason === STALLED_TOO_OFTEN;
    const runId = runIdOf(job);
    await this.#log.end(runId, {
      status: 'error',
      sessionId: job.data.sessionId ?? runId,
      code: 'INTERNAL_ERROR',
      message: stalled
        ? `the run lost its worker more than queue.max_stalled (${this.#options.maxStalledCount ?? 3}) time(s); it is not run again`
        : job.failedReason,
    });
  }

  async #process(job: Job<RunJobData, RunEnd>, token: string | undefined): Promise<RunEnd> {
    const data = await identify(job, this.#log);
    const project = this.#options.project;
    if (data.project !== undefined && project !== undefined && data.project !== project) {
      // Run here, it would use this project's agents and store: the caller is told instead.
      const message = `run ${data.runId} of project "${data.project}" was taken by a worker of project "${project}": two projects share one queue; give each its own Redis database (redis://HOST:PORT/1, /2, ...)`;
      await this.#log.end(data.runId, { status: 'error', sessionId: data.sessionId, code: 'USAGE', message });
      this.#options.log?.(message);
      throw new UnrecoverableError(message);
    }
    if (!(await this.#isTurn(data))) {
      // An older run of the session has not ended: this one waits behind it, whichever worker has it.
      await job.moveToDelayed(Date.now() + TURN_WAIT_MS, token);
      throw new DelayedError();
    }
    const held = this.#options.agents(data.agent);
    if (!held) {
      const end: RunEnd = {
        status: 'error',
        sessionId: data.sessionId,
        code: 'USAGE',
        message: `no agent named "${data.agent}"`,
      };
      await this.#log.end(data.runId, end);
      throw new UnrecoverableError(end.message);
    }
    const controller = new AbortController();
    const slot: RunSlot = { controller };
    this.#active.set(data.runId, slot);
    try {
      return await this.#runJob(job, data, held, slot);
    } catch (error) {
      if (this.#handingBack && (error instanceof DetachedRunError || controller.signal.aborted)) {
        await job.moveToDelayed(Date.now(), token);
        this.#options.log?.(`run ${data.runId} handed back`);
        throw new DelayedError();
      }
      const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!(error instanceof UnrecoverableError))
        this.#options.log?.(
          `run ${data.runId} failed on try ${job.attemptsMade + 1} of ${job.opts.attempts ?? 1}: ${(error as Error).message}${final ? '' : '; it is tried again (queue.attempts)'}`,
        );
      if (final || error instanceof UnrecoverableError) {
        await this.#log.end(data.runId, {
          status: 'error',
          sessionId: data.sessionId,
          // A session another run kept busy past every try is the caller's to retry later.
          code: error instanceof SessionBusyError ? 'SESSION_BUSY' : 'INTERNAL_ERROR',
          message: (error as Error).message,
        });
      }
      throw error;
    } finally {
      this.#active.delete(data.runId);
      held.release();
    }
  }

  // Whether no run queued on the session before this one is still to end. A run recorded there that
  // the queue no longer holds, or holds as finished, ended without its end reaching the record: it
  // holds nothing up.
  async #isTurn(data: IdentifiedJob): Promise<boolean> {
    const turns = this.#log.turns;
    for (let i = 0; i < 16; i++) {
      const first = await turns.first(data.sessionId);
      if (first === undefined || first === data.runId) return true;
      const state = await this.#queue.getJobState(first);
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
      await turns.done(data.sessionId, first);
    }
    return false;
  }

  async #runJob(
    job: Job<RunJobData, RunEnd>,
    data: IdentifiedJob,
    held: WorkerAgentLease,
    slot: RunSlot,
  ): Promise<RunEnd> {
    const lockMs = this.#options.lockDurationMs ?? 30_000;
    // The session is held for the whole job, from before the plan is read: a second worker given
    // the same job (its lock expired under load) waits, then finds the run done or continues it.
    const hold = await holdSession(held.store, data.sessionId, {
      holder: `run ${data.runId} on a worker`,
      ttlMs: lockMs,
      // A stopped worker's hold on the session lapses within one lock duration.
      wait: 2 * lockMs + 5_000,
      signal: slot.controller.signal,
      // Lost (the store could not renew it, or another worker took it over): this try stores nothing
      // more and fails; the job is tried again from the session (queue.attempts).
      onLost: (error) => {
        slot.lost ??= { error };
        slot.store?.lose(error);
        slot.controller.abort(error);
      },
    });
    try {
      return await this.#runHeld(job, data, held, slot, hold);
    } finally {
      const released = hold.release();
      // Handing back at shutdown, a store that does not answer (a frozen database) must not keep
      // the job from going back to the queue: the lease lapses by itself.
      if (this.#handingBack) await settledWithin(released, RELEASE_WAIT_MS);
      else await released;
    }
  }

  async #runHeld(
    job: Job<RunJobData, RunEnd>,
    data: IdentifiedJob,
    held: WorkerAgentLease,
    slot: RunSlot,
    hold: HeldSession,
  ): Promise<RunEnd> {
    const lockMs = this.#options.lockDurationMs ?? 30_000;
    let checkpoint = data.checkpoint;
    const session = await held.store.get(data.sessionId);
    if (data.decisions && !checkpoint) {
      const saved = session?.checkpoint as RunJobData['checkpoint'];
      if (!saved) return this.#refuse(data, `session ${data.sessionId} is not waiting for a decision`);
      checkpoint = saved;
      // Kept in the job: a worker that picks it up again knows the run's invocation and attempt.
      await job.updateData({ ...data, checkpoint });
    }
    const invocationId = checkpoint?.invocationId ?? data.runId;
    const plan = planRun(session, invocationId, checkpoint?.attempts ?? 0, held.agent);
    if (plan.kind !== 'start') await this.#log.publish(data.runId, plan.events);
    if (plan.kind === 'done') {
      const end: RunEnd = { status: plan.end.status, sessionId: data.sessionId, output: plan.end.output };
      await this.#log.end(data.runId, end);
      return end;
    }
    const store = new PublishingStore(held.store, this.#log, data.runId, hold);
    slot.store = store;
    const runner = new Runner({ agent: held.agent, store, leaseTtlMs: lockMs, writeBeforeTools: true });
    const common = {
      sessionId: data.sessionId,
      userId: data.userId,
      signal: slot.controller.signal,
      timeout: this.#options.runTimeoutMs,
      onEvent: store.observe,
    };
    // The checkpoint to recover from, or the one the worker before cleared before it stopped
    // without storing anything.
    const restore =
      plan.kind === 'recover' ? plan.checkpoint : session?.checkpoint === undefined ? checkpoint : undefined;
    if (plan.kind === 'recover')
      this.#options.log?.(`run ${data.runId} resumes from its session (attempt ${plan.checkpoint.attempts})`);
    if (restore) {
      // Fenced by the job's lease like the run's own writes: a worker that lost the session (paused
      // past its lease while another took the job over) must not put back a checkpoint under it.
      await hold
        .write((fence) => held.store.setCheckpoint(data.sessionId, restore, fence))
        .catch((error: unknown) => {
          throw storeLost(data.runId, error);
        });
    }
    const decisions = plan.kind === 'recover' ? plan.decisions : data.decisions;
    const run = decisions
      ? runner.resume({ ...common, decisions })
      : runner.run({ ...common, input: data.input ?? '', invocationId });
    run.then(
      () => undefined,
      () => undefined,
    );
    const result = await run.invocation.catch((error: unknown) => error);
    if (slot.controller.signal.aborted && this.#handingBack) throw new DetachedRunError();
    // The session store failed under the run: not the run's end but the job's failure, tried again
    // by BullMQ from what the session holds, as for a worker that died.
    const lost = slot.lost ?? store.lost;
    if (lost) throw storeLost(data.runId, lost.error);
    await store.settle();
    if (result instanceof UsageError) return this.#refuse(data, result.message);
    if (result instanceof Error && !isAgentError(result)) throw result;
    const end = endOf(data.sessionId, result as InvocationResult | AgentError);
    await this.#log.end(data.runId, end);
    return end;
  }

  async #refuse(data: IdentifiedJob, message: string): Promise<RunEnd> {
    const end: RunEnd = { status: 'error', sessionId: data.sessionId, code: 'USAGE', message };
    await this.#log.end(data.runId, end);
    return end;
  }
}

type IdentifiedJob = RunJobData & { runId: string; sessionId: string };

// A job in this process: how to stop it, the store it writes through, and why the store failed it.
interface RunSlot {
  controller: AbortController;
  store?: PublishingStore;
  lost?: { error: unknown };
}

// The failure a job whose session store failed under it (or whose lease on it was lost) ends its try with.
function storeLost(runId: string, error: unknown): Error {
  const detail = error instanceof Error ? error.message : String(error);
  return new Error(`run ${runId} stopped writing to its session: ${detail}`, { cause: error });
}

// How long closing waits for Redis once the grace is over.
const CLOSE_WAIT_MS = 5_000;

// How long a job handed back at shutdown waits to give its session's lease back.
const RELEASE_WAIT_MS = 2_000;

// How long a run whose session has an older run still going waits before it looks again.
const TURN_WAIT_MS = 250;

// Whether `promise` settled within `ms`, or before `hurry` aborts (its failure counts as settled).
async function settledWithin(promise: Promise<unknown>, ms: number, hurry?: AbortSignal): Promise<boolean> {
  const stop = new AbortController();
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      sleep(ms, hurry ? AbortSignal.any([stop.signal, hurry]) : stop.signal).then(
        () => false,
        () => false,
      ),
    ]);
  } finally {
    stop.abort();
  }
}

// BullMQ's reason for a job failed because its worker stopped renewing its lock too many times.
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

// A schedule's jobs carry no run id: it is made from the job id, the same on every worker.
function runIdOf(job: Job<RunJobData, RunEnd>): string {
  return job.data.runId ?? `run-${String(job.id).replace(/[^A-Za-z0-9._-]/g, '-')}`;
}

// A schedule's job takes its run id from the job id (runIdOf), and so does its session when the
// schedule names none.
async function identify(job: Job<RunJobData, RunEnd>, log: RunEventLog): Promise<IdentifiedJob> {
  const data = job.data;
  if (data.runId && data.sessionId) return data as IdentifiedJob;
  const runId = runIdOf(job);
  const sessionId = data.sessionId ?? runId;
  await log.open(runId, { agent: data.agent, sessionId });
  return { ...data, runId, sessionId };
}

function endOf(sessionId: string, result: InvocationResult | AgentError): RunEnd {
  if (isAgentError(result))
    return {
      status: 'error',
      sessionId,
      code: result.code,
      message: result.message,
      blame: result.blame,
      output: (result.result as { text?: string } | undefined)?.text,
    };
  return { status: result.status, sessionId, output: result.output, pending: result.pending };
}
