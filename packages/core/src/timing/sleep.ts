import { AgentError } from '../errors.js';
import { MAX_TIMER_MS } from './deadline.js';

/**
 * The one abortable sleep: resolves after `ms`, or rejects with an `ABORTED` {@link AgentError}
 * (carrying the signal's reason as its cause) as soon as `signal` aborts. The timer never
 * outlives the wait.
 *
 * @example
 * await sleep(backoffDelay(policy, attempt) ?? 0, signal);
 */
export function sleep(ms: number, signal?: AbortSignal, what = 'waiting'): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => new AgentError(`cancelled while ${what}`, 'ABORTED', { cause: signal?.reason });
    if (signal?.aborted) return reject(aborted());
    // A wait longer than one timer holds is a chain of them: one such timer would fire at once.
    let left = Math.max(0, ms);
    let timer: ReturnType<typeof setTimeout>;
    const wait = () => {
      const now = Math.min(left, MAX_TIMER_MS);
      left -= now;
      timer = setTimeout(() => {
        if (left > 0) return wait();
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, now);
    };
    wait();
    function onAbort() {
      clearTimeout(timer);
      reject(aborted());
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
