import { AgentError } from '../errors.js';

/** The error a signal was aborted with, as an {@link AgentError}. */
export function abortError(signal: AbortSignal): AgentError {
  const reason = signal.reason;
  if (reason instanceof AgentError) return reason;
  return new AgentError('the run was cancelled', 'ABORTED', { cause: reason });
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
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
