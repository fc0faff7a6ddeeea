/**
 * An unbounded queue from one producer to one async-iterating consumer. The loop pushes events
 * synchronously (from inside middleware and stream callbacks) and never waits for the reader.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #closed = false;
  #failure: { error: unknown } | undefined;
  #waiter: (() => void) | undefined;

  #discard = false;

  /** Stops keeping items for a reader that will never come (the run is only awaited). */
  discard(): void {
    this.#discard = true;
    this.#items = [];
    this.#head = 0;
  }

  push(item: T): void {
    if (this.#closed || this.#discard) return;
    this.#items.push(item);
    this.#wake();
  }

  close(error?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (error !== undefined) this.#failure = { error };
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.#head < this.#items.length) {
        const item = this.#items[this.#head] as T;
        // Let a read item go at once: a long run must not hold every event it has streamed.
        (this.#items as Array<T | undefined>)[this.#head++] = undefined;
        if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
          this.#items = this.#items.slice(this.#head);
          this.#head = 0;
        }
        yield item;
        continue;
      }
      if (this.#closed) {
        if (this.#failure) throw this.#failure.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }
}
