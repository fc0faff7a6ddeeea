/** Runs tasks one after another per key, so two writes to one session in this process never interleave. */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every task queued earlier under `key`; its result or error is returned as is. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Resolves when every queued task has settled. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
