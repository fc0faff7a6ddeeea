import { AgentError, deadline, sleep } from '@agentctl/core';
import { HttpError } from './http-error.js';

/** How long cancelled runs are given to store their end and release their sessions, after the grace. */
export const WIND_DOWN_MS = 2_000;

/** What a drain did: runs that finished in the grace, runs cancelled, and cancelled runs that had not ended when the wind-down was over. */
export interface DrainOutcome {
  finished: number;
  cancelled: number;
  unended: number;
}

/** One run the tracker admitted; `end` must be called once it is over. */
export interface RunTicket {
  /** Aborted when the server gives up on the run (shutdown after the grace period). */
  signal: AbortSignal;
  end(): void;
}

/**
 * The runs in flight: a cap on how many run at once (429 beyond it), one run per session at a
 * time in this process (409), and a drain for shutdown.
 */
export class RunTracker {
  readonly max: number;
  readonly #runs = new Map<symbol, { controller: AbortController; ended: Promise<void> }>();
  readonly #sessions = new Set<string>();
  #draining = false;
  readonly #closing = new AbortController();

  constructor(max: number) {
    this.max = max;
  }

  /** Aborted when the drain starts: long-lived streams that are not runs (`/project/events`) end then. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** How many runs are in flight. */
  get size(): number {
    return this.#runs.size;
  }

  /** Admits a run on `sessionId`, or throws the HTTP error that refuses it. */
  begin(sessionId: string | undefined): RunTicket {
    if (this.#draining) throw new HttpError(503, 'shutting_down', 'the server is shutting down');
    if (this.#runs.size >= this.max) {
      throw new HttpError(429, 'too_many_runs', `${this.max} runs are in flight; try again shortly`, {
        'retry-after': '1',
      });
    }
    if (sessionId !== undefined && this.#sessions.has(sessionId)) {
      throw new HttpError(409, 'session_busy', `session ${sessionId} is running; wait for its run to end`);
    }
    const key = Symbol(sessionId);
    const controller = new AbortController();
    let done!: () => void;
    const ended = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#runs.set(key, { controller, ended });
    if (sessionId !== undefined) this.#sessions.add(sessionId);
    let open = true;
    return {
      signal: controller.signal,
      end: () => {
        if (!open) return;
        open = false;
        this.#runs.delete(key);
        if (sessionId !== undefined) this.#sessions.delete(sessionId);
        done();
      },
    };
  }

  /**
   * Refuses new runs, waits up to `graceMs` for the runs in flight (less if `hurry` aborts), then
   * cancels the rest (they end as ABORTED, their sessions valid) and waits up to
   * {@link WIND_DOWN_MS} for them to store their end.
   */
  async drain(graceMs: number, hurry?: AbortSignal): Promise<DrainOutcome> {
    this.#draining = true;
    this.#closing.abort();
    const before = this.#runs.size;
    const all = () => Promise.all([...this.#runs.values()].map((r) => r.ended));
    const stop = new AbortController();
    const grace = hurry ? AbortSignal.any([stop.signal, hurry]) : stop.signal;
    await Promise.race([all(), sleep(graceMs, grace).catch(() => undefined)]);
    stop.abort();
    const cancelled = this.#runs.size;
    const reason = new AgentError('the server shut down before the run finished', 'ABORTED');
    for (const run of this.#runs.values()) run.controller.abort(reason);
    // A cancelled run still stores its end and gives its lease back: a store that does not answer
    // (a frozen database) must not hold the shutdown past the grace for its query timeout. Such a
    // run's session keeps what its last write stored, and its lease lapses.
    const windDown = deadline(undefined, WIND_DOWN_MS, () => new Error('wind-down over'));
    try {
      await windDown.race(all()).catch(() => undefined);
    } finally {
      windDown.dispose();
    }
    return { finished: before - cancelled, cancelled, unended: this.#runs.size };
  }
}
