import { WaitingAbortController } from './abortable.js';

/** A signal that aborts when any of its sources does, and the means to let go of them. */
export interface LinkedSignal {
  /** Aborts with the reason of the first source that aborts. */
  readonly signal: AbortSignal;
  /** Removes the listeners on the sources; call it once the signal is no longer needed. */
  dispose(): void;
}

const NOOP = (): void => undefined;

/**
 * Aborts `to` with `from`'s reason when `from` aborts (at once if it has); returns what removes the
 * listener. Used instead of `AbortSignal.any`, whose signal Node 20 keeps alive for good while it
 * has an `abort` listener and has not aborted: one per run of a server, never freed.
 */
export function forwardAbort(from: AbortSignal, to: AbortController): () => void {
  if (from.aborted) {
    to.abort(from.reason);
    return NOOP;
  }
  const onAbort = (): void => to.abort(from.reason);
  from.addEventListener('abort', onAbort, { once: true });
  return () => from.removeEventListener('abort', onAbort);
}

/**
 * A signal that aborts with the first of `sources` that aborts, as `AbortSignal.any` does, but
 * freed with its last holder once `dispose` has run: `AbortSignal.any`'s is kept alive by Node 20
 * while it has a listener and has not aborted, and the waits of a run add one that stays.
 *
 * @example
 * const linked = linkedSignal([request.signal, ticket.signal]);
 * try { await runner.run({ input, signal: linked.signal }).invocation; } finally { linked.dispose(); }
 */
export function linkedSignal(sources: readonly (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new WaitingAbortController();
  const unlinks: (() => void)[] = [];
  const dispose = (): void => {
    for (const unlink of unlinks.splice(0)) unlink();
  };
  for (const source of sources) {
    if (!source) continue;
    unlinks.push(forwardAbort(source, controller));
    if (controller.signal.aborted) break;
  }
  // Once aborted, the other sources have nothing left to say.
  if (controller.signal.aborted) dispose();
  else controller.signal.addEventListener('abort', dispose, { once: true });
  return { signal: controller.signal, dispose };
}
