import { AgentError } from '../errors.js';
import { lastResolvers, pendingPromise } from './pending-promise.js';

/** The error a signal was aborted with, as an {@link AgentError}. */
export function abortError(signal: AbortSignal): AgentError {
  const reason = signal.reason;
  if (reason instanceof AgentError) return reason;
  return new AgentError('the run was cancelled', 'ABORTED', { cause: reason });
}

// One abort listener per signal, however many waits are in flight on it: an EventTarget listener
// added and removed per model call and per tool call was a tenth of the loop's time under load.
// The waits are reached only through the signal (and the listener), so they go with the signal.
const waitsOn = new WeakMap<AbortSignal, Waits>();

// The waits in flight on one signal. A run waits on one thing at a time (a model call, or a tool
// call) except while tool calls run concurrently: one slot, and a set only for the extra ones, so
// the common wait adds and removes no set entry.
class Waits {
  #one: Wait<unknown> | undefined;
  #more: Set<Wait<unknown>> | undefined;

  add(wait: Wait<unknown>): void {
    if (this.#one === undefined) {
      this.#one = wait;
      return;
    }
    this.#more ??= new Set();
    this.#more.add(wait);
  }

  delete(wait: Wait<unknown>): void {
    if (this.#one === wait) this.#one = undefined;
    else this.#more?.delete(wait);
  }

  abort(): void {
    const one = this.#one;
    const more = this.#more;
    this.#one = this.#more = undefined;
    one?.abort();
    if (more) for (const wait of more) wait.abort();
  }
}

/**
 * An AbortController that aborts the waits on its signal itself, when it aborts: the waits need no
 * listener on the signal (an EventTarget listener, its closure and its map entry per run). A run's
 * own controller is one; a signal combined from others (a caller's, a timeout) still gets a listener.
 */
export class WaitingAbortController extends AbortController {
  constructor() {
    super();
    waitsOn.set(this.signal, new Waits());
  }

  override abort(reason?: unknown): void {
    const first = !this.signal.aborted;
    super.abort(reason);
    if (first) waitsOn.get(this.signal)?.abort();
  }
}

function waitsFor(signal: AbortSignal): Waits {
  let waits = waitsOn.get(signal);
  if (!waits) {
    const created = new Waits();
    waits = created;
    waitsOn.set(signal, created);
    signal.addEventListener('abort', () => created.abort(), { once: true });
  }
  return waits;
}

/**
 * One wait on a signal: its promise settles with what the waiter is given (`settle`, `fail`), or
 * rejects as soon as the signal aborts. A class: its methods are shared, where closures were made
 * per model call and per tool call.
 */
export class Wait<T> {
  readonly promise: Promise<T>;
  readonly #resolve: (value: T) => void;
  readonly #reject: (error: unknown) => void;
  readonly #signal: AbortSignal;
  readonly #waits: Waits;
  #released = false;
  #aborted = false;

  // Made by waitOn, on a signal that has not aborted.
  constructor(signal: AbortSignal) {
    this.promise = pendingPromise<T>();
    this.#resolve = lastResolvers.resolve as (value: T) => void;
    this.#reject = lastResolvers.reject;
    this.#signal = signal;
    this.#waits = waitsFor(signal);
    this.#waits.add(this as Wait<unknown>);
  }

  /**
   * Stops watching the signal, before the waiter settles the wait: an abort from now on leaves the
   * wait alone. False when the signal aborted first (the promise is rejected already).
   */
  release(): boolean {
    if (!this.#released) {
      this.#released = true;
      this.#waits.delete(this as Wait<unknown>);
    }
    return !this.#aborted;
  }

  settle(value: T): void {
    this.release();
    this.#resolve(value);
  }

  fail(error: unknown): void {
    this.release();
    this.#reject(error);
  }

  /** Called when the signal aborts (by the waits it belongs to). */
  abort(): void {
    this.#aborted = true;
    this.#reject(abortError(this.#signal));
  }
}

/**
 * A wait on `signal` that the caller settles itself (no reaction on another promise); undefined
 * when the signal has aborted already.
 */
export function waitOn<T>(signal: AbortSignal): Wait<T> | undefined {
  return signal.aborted ? undefined : new Wait<T>(signal);
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: work that ignores its signal
 * must not hold the loop.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // Work started on an aborted signal may reject with its reason: nobody else will handle that.
    promise.catch(() => undefined);
    return Promise.reject(abortError(signal));
  }
  const wait = waitOn<T>(signal) as Wait<T>;
  promise.then(
    (value) => wait.settle(value),
    (error: unknown) => wait.fail(error),
  );
  return wait.promise;
}

/**
 * {@link abortable} from now on: a signal aborted already is not raced, so what a cancelled run
 * still does on its way out (a middleware's `loop_end`) runs through. Middleware that never settles
 * must not keep a run from being cancelled.
 */
export function abortableFromNow<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return signal.aborted ? promise : abortable(promise, signal);
}
