import { keptShapes } from '../loop/kept-shapes.js';

/** A signal that aborts with an outer signal or when its time is up, and the means to stop its timer. */
export interface Deadline {
  /** Aborts with the outer signal's reason, or with the deadline's reason once `ms` have passed. */
  readonly signal: AbortSignal;
  /** True once the time ran out (not when the outer signal aborted). */
  readonly expired: boolean;
  /** Starts the time again from now (an idle timeout touched by progress). */
  restart(): void;
  /** Stops the timer and lets go of the outer signal; call it in a `finally`. */
  dispose(): void;
  /**
   * Settles with `work`, or rejects with the deadline's reason once the time runs out. The outer
   * signal is not watched here (wrap the result in `abortable` for that), and `signal` is not made
   * unless someone reads it: work that never looks at its signal costs a timer, not a controller.
   * One piece of work at a time.
   */
  race<T>(work: Promise<T>): Promise<T>;
}

/** The longest delay a timer holds (2^31-1 ms, about 24.8 days): a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const NEVER = new AbortController().signal;
const NOTHING: Deadline = {
  signal: NEVER,
  expired: false,
  restart: () => undefined,
  dispose: () => undefined,
  race: (work) => work,
};

/**
 * The one deadline helper: a signal that aborts when `outer` aborts or after `ms`, with
 * `reason()` as its reason. Without `ms` it is `outer` itself, so the common case of no timeout
 * costs no controller, listener or timer. With `ms`, the controller (and its listener on `outer`)
 * is made the first time `signal` is read.
 *
 * @example
 * const limit = deadline(signal, 5_000, () => new AgentError('too slow', 'TIMEOUT'));
 * try { await work(limit.signal); } finally { limit.dispose(); }
 */
export function deadline(
  outer: AbortSignal | undefined,
  ms: number | undefined,
  reason: () => unknown,
  options: DeadlineOptions = {},
): Deadline {
  if (ms === undefined || !Number.isFinite(ms)) {
    if (!outer) return NOTHING;
    const untimed = new Untimed(outer);
    keptShapes.deadline = untimed;
    return untimed;
  }
  const since = options.startWhenUsed === true ? (options.startedAt ?? performance.now()) : undefined;
  return new TimedDeadline(outer, ms, reason, since);
}

// No time limit: the outer signal as it is. A class, since every agent run of an invocation makes
// one, and its methods are shared rather than five closures per run.
class Untimed implements Deadline {
  readonly signal: AbortSignal;
  readonly expired = false;

  constructor(signal: AbortSignal) {
    this.signal = signal;
  }

  restart(): void {}

  dispose(): void {}

  race<T>(work: Promise<T>): Promise<T> {
    return work;
  }
}

/** Options of {@link deadline}. */
export interface DeadlineOptions {
  /**
   * Start the timer only when `signal` is first read or work is raced (counting from the deadline's
   * creation): work that finishes synchronously never makes a timer. `expired` stays false until then.
   */
  startWhenUsed?: boolean;
  /** With `startWhenUsed`: the `performance.now()` reading the time counts from (default: now). */
  startedAt?: number;
}

// A class: a run makes one per tool call, and the signal's controller and listener only on demand.
class TimedDeadline implements Deadline {
  readonly #outer: AbortSignal | undefined;
  readonly #ms: number;
  readonly #reason: () => unknown;
  #controller: AbortController | undefined;
  #expired = false;
  #expiry: unknown;
  #racer: ((reason: unknown) => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // What is left of a wait longer than one timer holds, once the current timer fires.
  #beyond = 0;
  #forward: (() => void) | undefined;
  // Set while the timer waits to be started on first use: when the time started counting.
  #since: number | undefined;

  // `since` is set when the timer waits for first use: when the time started counting.
  constructor(outer: AbortSignal | undefined, ms: number, reason: () => unknown, since: number | undefined) {
    this.#outer = outer;
    this.#ms = Math.max(0, ms);
    this.#reason = reason;
    if (since !== undefined) this.#since = since;
    else this.restart();
  }

  #startNow(): void {
    if (this.#since === undefined) return;
    const left = this.#ms - (performance.now() - this.#since);
    this.#since = undefined;
    if (this.#expired || this.#outer?.aborted) return;
    this.#arm(Math.max(0, left));
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    this.#startNow();
    const controller = new AbortController();
    this.#controller = controller;
    const outer = this.#outer;
    if (this.#expired) controller.abort(this.#expiry);
    else if (outer?.aborted) controller.abort(outer.reason);
    else if (outer) {
      this.#forward = () => {
        clearTimeout(this.#timer);
        controller.abort(outer.reason);
      };
      outer.addEventListener('abort', this.#forward, { once: true });
    }
    return controller.signal;
  }

  get expired(): boolean {
    return this.#expired;
  }

  restart(): void {
    if (this.#since !== undefined) {
      this.#since = performance.now();
      return;
    }
    if (this.#expired || this.#outer?.aborted) return;
    clearTimeout(this.#timer);
    this.#arm(this.#ms);
  }

  #arm(ms: number): void {
    this.#beyond = Math.max(0, ms - MAX_TIMER_MS);
    this.#timer = setTimeout(expire, Math.min(ms, MAX_TIMER_MS), this);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#racer = undefined;
    if (this.#forward) this.#outer?.removeEventListener('abort', this.#forward);
  }

  race<T>(work: Promise<T>): Promise<T> {
    this.#startNow();
    if (this.#expired) {
      work.catch(() => undefined);
      return Promise.reject(this.#expiry);
    }
    return new Promise<T>((resolve, reject) => {
      this.#racer = reject;
      work.then(
        (value) => {
          this.#racer = undefined;
          resolve(value);
        },
        (error: unknown) => {
          this.#racer = undefined;
          reject(error);
        },
      );
    });
  }

  /** The timer's end: called by {@link expire}. */
  expireNow(): void {
    if (this.#outer?.aborted) return;
    if (this.#beyond > 0) {
      this.#arm(this.#beyond);
      return;
    }
    this.#expired = true;
    this.#expiry = this.#reason();
    if (this.#forward) this.#outer?.removeEventListener('abort', this.#forward);
    this.#controller?.abort(this.#expiry);
    this.#racer?.(this.#expiry);
  }
}

function expire(limit: TimedDeadline): void {
  limit.expireNow();
}
