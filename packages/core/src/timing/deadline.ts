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
}

const NEVER = new AbortController().signal;
const NOTHING: Deadline = {
  signal: NEVER,
  expired: false,
  restart: () => undefined,
  dispose: () => undefined,
};

/**
 * The one deadline helper: a signal that aborts when `outer` aborts or after `ms`, with
 * `reason()` as its reason. Without `ms` it is `outer` itself, so the common case of no timeout
 * costs no controller, listener or timer.
 *
 * @example
 * const limit = deadline(signal, 5_000, () => new AgentError('too slow', 'TIMEOUT'));
 * try { await work(limit.signal); } finally { limit.dispose(); }
 */
export function deadline(
  outer: AbortSignal | undefined,
  ms: number | undefined,
  reason: () => unknown,
): Deadline {
  if (ms === undefined || !Number.isFinite(ms)) {
    return outer
      ? { signal: outer, expired: false, restart: () => undefined, dispose: () => undefined }
      : NOTHING;
  }
  const controller = new AbortController();
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const forward = () => {
    clearTimeout(timer);
    controller.abort(outer?.reason);
  };
  const start = () => {
    if (controller.signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(
      () => {
        expired = true;
        outer?.removeEventListener('abort', forward);
        controller.abort(reason());
      },
      Math.max(0, ms),
    );
  };
  if (outer?.aborted) controller.abort(outer.reason);
  else {
    outer?.addEventListener('abort', forward, { once: true });
    start();
  }
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    restart: start,
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    },
  };
}
