import type { AgentEvent } from '../events.js';
import type { SessionStore } from '../session.js';
import type { SessionLease } from '../session-lease.js';
import { watchedUpdate } from '../watched-update.js';
import type { HeldSession } from './session-lease.js';

type Job = AgentEvent[] | { scope: string; delta: Record<string, unknown> } | KeyUpdate;

// An update of one shared key, answered to the tool that asked for it once the store made it.
interface KeyUpdate {
  scope: string;
  key: string;
  update: (current: unknown) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

// Writers waiting for the end of this turn of the event loop: one immediate wakes them all, where
// an immediate per writer made a thousand of them per turn with a thousand runs in flight. The list
// holds the writers themselves: a writer waiting for its turn keeps no promise, closure or frame.
// A writer flushed before the turn ends leaves its slot empty, so the list does not keep its store
// (and the whole session) alive until then: a thousand runs ending in one turn would.
let waiting: Array<SessionWriter | undefined> = [];

function atTurnEnd(writer: SessionWriter): number {
  if (waiting.length === 0) setImmediate(wakeWaiting);
  return waiting.push(writer) - 1;
}

function wakeWaiting(): void {
  const woken = waiting;
  waiting = [];
  for (const writer of woken) writer?.wake();
}

/**
 * Writes an invocation's events (and its shared-scope state updates) to the store in the order
 * they happened, one write at a time. A write waits for the end of the current turn of the event
 * loop (or a flush), so the events of one turn go out together, and events that arrive while a
 * write is under way join the next one. A failed write is remembered and thrown by
 * {@link SessionWriter.flush}, and nothing after it is written until {@link SessionWriter.ending}:
 * events stored past a lost write (a tool's result without the call it answers) would leave a
 * session no model accepts.
 */
export class SessionWriter {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #jobs: Job[] = [];
  // Set while a write is under way (not while the writer waits for the end of the turn).
  #running: Promise<void> | undefined;
  // The writer's index in `waiting` while it waits for the end of the turn, else -1.
  #slot = -1;
  #failure: { error: unknown } | undefined;
  // Set by a failed write: what comes after it is dropped, until the invocation's end.
  #dropping = false;

  readonly #held: HeldSession | undefined;

  /** With `held`, each write goes through the invocation's lease: confirmed, and fenced in the store. */
  constructor(store: SessionStore, sessionId: string, held?: HeldSession) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#held = held;
  }

  /** Queues an event for the session's log. */
  event(event: AgentEvent): void {
    if (this.#dropping) return;
    const last = this.#jobs[this.#jobs.length - 1];
    if (Array.isArray(last)) last.push(event);
    else this.#jobs.push([event]);
    this.#schedule();
  }

  /** Queues an update of a shared scope (`app`, `user:<id>`). */
  scoped(scope: string, delta: Record<string, unknown>): void {
    if (this.#dropping) return;
    this.#jobs.push({ scope, delta });
    this.#schedule();
  }

  /**
   * Queues an update of one key of a shared scope with the store's `updateScopedKey` (which it must
   * have), in order with the writes queued before it, so an earlier write of the same key cannot
   * land after it. Settles once the store made it: with the new value, or the error. An error of
   * `update` itself stops nothing else; a refused write stops later writes as any failed write does.
   */
  scopedKey(scope: string, key: string, update: (current: unknown) => unknown): Promise<unknown> {
    if (this.#dropping)
      return Promise.reject(this.#failure?.error ?? new Error('an earlier write of the session failed'));
    return new Promise((resolve, reject) => {
      this.#jobs.push({ scope, key, update, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * The invocation's end (its error and `run_end`) comes next: it is written after what the store
   * holds even when an earlier write failed, so the session says how the run ended.
   */
  ending(): void {
    this.#dropping = false;
  }

  /** Waits for every queued write; throws the first write that failed. */
  async flush(): Promise<void> {
    this.wake();
    while (this.#running) await this.#running;
    if (this.#failure) throw this.#failure.error;
  }

  /** Starts writing what waits for the end of the turn (called at the turn's end, or by a flush). */
  wake(): void {
    if (this.#slot < 0) return;
    // Woken by a flush, the writer leaves the list; woken at the turn's end, the list is gone.
    if (waiting[this.#slot] === this) waiting[this.#slot] = undefined;
    this.#slot = -1;
    this.#running = this.#drain();
  }

  // A write under way picks up what is queued meanwhile; otherwise wait for the turn to end.
  #schedule(): void {
    if (this.#running || this.#slot >= 0) return;
    this.#slot = atTurnEnd(this);
  }

  async #drain(): Promise<void> {
    for (let job = this.#jobs.shift(); job; job = this.#jobs.shift()) {
      if ('key' in job) {
        await this.#updateKey(job);
        continue;
      }
      try {
        if (!Array.isArray(job)) {
          // A shared scope belongs to no session, but the change is this run's: fenced by its lease,
          // so a holder that lost it changes no one's shared state.
          const { scope, delta } = job;
          if (this.#held)
            await this.#held.write(
              (fence) => this.#store.updateScopedState?.(scope, delta, fence) ?? Promise.resolve(),
            );
          else await this.#store.updateScopedState?.(scope, delta);
        } else if (this.#held)
          await this.#held.write((fence) => this.#store.append(this.#sessionId, job, fence));
        else await this.#store.append(this.#sessionId, job);
      } catch (error) {
        this.#fail(error);
      }
    }
    this.#running = undefined;
  }

  // A refused write stops the writes after it: they are dropped, and key updates waiting on them
  // are told why.
  #fail(error: unknown): void {
    this.#failure ??= { error };
    this.#dropping = true;
    for (const dropped of this.#jobs.splice(0)) if ('key' in dropped) dropped.reject(error);
  }

  async #updateKey(job: KeyUpdate): Promise<void> {
    const store = this.#store;
    const watched = watchedUpdate(job.update);
    let value: unknown;
    const write = async (fence?: SessionLease): Promise<void> => {
      value = await store.updateScopedKey?.(job.scope, job.key, watched.update, fence);
    };
    try {
      await (this.#held ? this.#held.write(write) : write());
      job.resolve(value);
    } catch (error) {
      job.reject(error);
      if (!watched.threw()) this.#fail(error);
    }
  }
}
