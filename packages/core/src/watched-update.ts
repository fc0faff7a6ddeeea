/** A key update's function, wrapped so its caller can tell the function's own error from the store's. */
export interface WatchedUpdate {
  /** Calls the wrapped function, noting whether it threw. */
  readonly update: (current: unknown) => unknown;
  /** Whether the wrapped function threw (then the error is the update's, not a refused write). */
  readonly threw: () => boolean;
}

/**
 * Wraps `update` so that a failed `updateScopedKey` can be told apart: a function that threw (a tool
 * refusing to forget a note that is not there) is the caller's error; anything else is the store
 * refusing the write, which stops the run's later writes.
 */
export function watchedUpdate(update: (current: unknown) => unknown): WatchedUpdate {
  let threw = false;
  return {
    update(current) {
      try {
        return update(current);
      } catch (error) {
        threw = true;
        throw error;
      }
    },
    threw: () => threw,
  };
}
