import { AgentError } from '../errors.js';

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
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    function onAbort() {
      clearTimeout(timer);
      reject(aborted());
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
