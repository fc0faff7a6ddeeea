import { AgentError } from '../errors.js';

/** The error a signal was aborted with, as an {@link AgentError}. */
export function abortError(signal: AbortSignal): AgentError {
  const reason = signal.reason;
  if (reason instanceof AgentError) return reason;
  return new AgentError('the run was cancelled', 'ABORTED', { cause: reason });
}

// One abort listener per signal, however many waits are in flight on it: an EventTarget listener
// added and removed per model call and per tool call was a tenth of the loop's time under load.
// The set is reached only through the signal (and the listener), so it goes with the signal.
const waitsOn = new WeakMap<AbortSignal, Set<() => void>>();

function waitsFor(signal: AbortSignal): Set<() => void> {
  let waits = waitsOn.get(signal);
  if (!waits) {
    const created = new Set<() => void>();
    waits = created;
    waitsOn.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const reject of created) reject();
        created.clear();
      },
      { once: true },
    );
  }
  return waits;
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
  const waits = waitsFor(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    waits.add(onAbort);
    promise.then(
      (value) => {
        waits.delete(onAbort);
        resolve(value);
      },
      (error: unknown) => {
        waits.delete(onAbort);
        reject(error);
      },
    );
  });
}
