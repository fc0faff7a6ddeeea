import type { AgentEvent } from '../events.js';
import type { SessionStore } from '../session.js';

type Job = AgentEvent[] | { scope: string; delta: Record<string, unknown> };

// The resolver of the promise just made: one shared executor instead of a closure per write.
let captured: () => void = () => undefined;
function capture(resolve: () => void): void {
  captured = resolve;
}

// Writers waiting for the end of this turn of the event loop: one immediate wakes them all, where
// an immediate per writer made a thousand of them per turn with a thousand runs in flight.
let waiting: Array<() => void> = [];

function atTurnEnd(wake: () => void): void {
  waiting.push(wake);
  if (waiting.length === 1) setImmediate(wakeWaiting);
}

function wakeWaiting(): void {
  const woken = waiting;
  waiting = [];
  for (const wake of woken) wake();
}

/**
 * Writes an invocation's events (and its shared-scope state updates) to the store in the order
 * they happened, one write at a time. A write waits for the end of the current turn of the event
 * loop (or a flush), so the events of one turn go out together, and events that arrive while a
 * write is under way join the next one. A failed write is remembered and thrown by
 * {@link SessionWriter.flush}.
 */
export class SessionWriter {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #jobs: Job[] = [];
  #running: Promise<void> | undefined;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  constructor(store: SessionStore, sessionId: string) {
    this.#store = store;
    this.#sessionId = sessionId;
  }

  /** Queues an event for the session's log. */
  event(event: AgentEvent): void {
    const last = this.#jobs[this.#jobs.length - 1];
    if (Array.isArray(last)) last.push(event);
    else this.#jobs.push([event]);
    this.#running ??= this.#drain();
  }

  /** Queues an update of a shared scope (`app`, `user:<id>`). */
  scoped(scope: string, delta: Record<string, unknown>): void {
    this.#jobs.push({ scope, delta });
    this.#running ??= this.#drain();
  }

  /** Waits for every queued write; throws the first write that failed. */
  async flush(): Promise<void> {
    this.#wake?.();
    while (this.#running) await this.#running;
    if (this.#failure) throw this.#failure.error;
  }

  async #drain(): Promise<void> {
    const turnEnd = new Promise<void>(capture);
    this.#wake = captured;
    atTurnEnd(captured);
    await turnEnd;
    this.#wake = undefined;
    for (let job = this.#jobs.shift(); job; job = this.#jobs.shift()) {
      try {
        if (Array.isArray(job)) await this.#store.append(this.#sessionId, job);
        else await this.#store.updateScopedState?.(job.scope, job.delta);
      } catch (error) {
        this.#failure ??= { error };
      }
    }
    this.#running = undefined;
  }
}
