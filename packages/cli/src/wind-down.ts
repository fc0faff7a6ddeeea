import { type Deadline, deadline } from '@agentctl/core';
import { CLOSE_WAIT_MS } from './close-within.js';

/** What {@link windDown} gives when the work did not settle in time. */
export const WOUND_DOWN_LATE: unique symbol = Symbol('wound down late');

/**
 * The {@link CLOSE_WAIT_MS} a stopped command gets, counted once from the stop and shared by what it
 * waits for then: a run's end ({@link windDown}), then the close of its store ({@link closeWithin}).
 * A store that did not answer for the run's end is not waited for a second time to close.
 */
export class WindDownBudget {
  #since: number | undefined;

  /** Starts the count, at the first stop. */
  start(): void {
    this.#since ??= performance.now();
  }

  /** Milliseconds left since the stop (the whole wait before one). */
  left(): number {
    if (this.#since === undefined) return CLOSE_WAIT_MS;
    return Math.max(0, CLOSE_WAIT_MS - (performance.now() - this.#since));
  }
}

/**
 * `work`'s value, or {@link WOUND_DOWN_LATE} when it has not settled {@link CLOSE_WAIT_MS} after
 * `stopped` aborts (what is left of `budget`, when one is shared): a cancelled run whose session
 * store does not answer (a frozen database holds its last writes for the store's query timeout)
 * or whose tool does not stop must not keep a stopping process for longer. Until `stopped`
 * aborts, `work` takes as long as it takes.
 *
 * @example
 * const result = await windDown(controller.signal, invocationOutcome(run));
 */
export async function windDown<T>(
  stopped: AbortSignal,
  work: Promise<T>,
  budget: WindDownBudget = new WindDownBudget(),
): Promise<T | typeof WOUND_DOWN_LATE> {
  let limit: Deadline | undefined;
  let start: (() => void) | undefined;
  const late = new Promise<typeof WOUND_DOWN_LATE>((resolve) => {
    start = () => {
      budget.start();
      limit = deadline(undefined, budget.left(), () => WOUND_DOWN_LATE);
      limit.signal.addEventListener('abort', () => resolve(WOUND_DOWN_LATE), { once: true });
    };
  });
  if (stopped.aborted) start!();
  else stopped.addEventListener('abort', start!, { once: true });
  try {
    return await Promise.race([work, late]);
  } finally {
    stopped.removeEventListener('abort', start!);
    limit?.dispose();
  }
}
