import { getMaxListeners, setMaxListeners } from 'node:events';

// What Node allows on an EventTarget before warning about a leak.
const NODE_DEFAULT = 10;

/**
 * Lets `count` more abort listeners join a signal without Node's MaxListenersExceededWarning:
 * a model answer with many parallel tool calls listens once per call on the run's signal, which
 * is expected, not a leak. The limit is set, not added to, so repeated batches do not raise it.
 */
export function allowListeners(signal: AbortSignal, count: number): void {
  const wanted = NODE_DEFAULT + count;
  if (getMaxListeners(signal) < wanted) setMaxListeners(wanted, signal);
}
