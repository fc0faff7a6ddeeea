import { lastResolvers, pendingPromise } from './pending-promise.js';

/**
 * An unbounded queue from one producer to one async-iterating consumer. The loop pushes events
 * synchronously (from inside middleware and stream callbacks) and never waits for the reader.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #closed = false;
  #failure: { error: unknown } | undefined;
  // The reader waiting on an empty channel: the next push settles its `next()` directly.
  #resolve: ((step: IteratorResult<T, undefined>) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #discard = false;

  /** Stops keeping items for a reader that will never come (the run is only awaited). */
  discard(): void {
    this.#discard = true;
    this.#items = [];
    this.#head = 0;
  }

  push(item: T): void {
    if (this.#closed || this.#discard) return;
    const resolve = this.#resolve;
    if (resolve) {
      this.#resolve = this.#reject = undefined;
      resolve({ value: item, done: false });
      return;
    }
    this.#items.push(item);
  }

  close(error?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (error !== undefined) this.#failure = { error };
    const resolve = this.#resolve;
    const reject = this.#reject;
    this.#resolve = this.#reject = undefined;
    if (!resolve || !reject) return;
    if (this.#failure) reject(this.#failure.error);
    else resolve({ value: undefined, done: true });
  }

  /** True once the producer closed the channel (items may be left to read). */
  get closed(): boolean {
    return this.#closed;
  }

  /** The next item, as an iterator result: done once the channel is closed and drained. */
  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#head < this.#items.length) return Promise.resolve({ value: this.#take(), done: false });
    if (this.#closed) {
      if (this.#failure) return Promise.reject(this.#failure.error);
      return Promise.resolve({ value: undefined, done: true });
    }
    // A reader waits once per burst of events: no closure per wait.
    const waiting = pendingPromise<IteratorResult<T, undefined>>();
    this.#resolve = lastResolvers.resolve as (step: IteratorResult<T, undefined>) => void;
    this.#reject = lastResolvers.reject;
    return waiting;
  }

  // Hand-written rather than an async generator: two generator layers (here and in the run) were a
  // quarter of the allocations of a run's step under load.
  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    return { next: () => this.next() };
  }

  #take(): T {
    const item = this.#items[this.#head] as T;
    // Let a read item go at once: a long run must not hold every event it has streamed.
    (this.#items as Array<T | undefined>)[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
