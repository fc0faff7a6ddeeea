import type {
  AgentEvent,
  HeldSession,
  LeaseAttempt,
  LeaseRequest,
  Session,
  SessionInit,
  SessionLease,
  SessionStore,
  SessionSummary,
} from '@agentctl/core';
import { watchedUpdate } from '@agentctl/core';
import type { RunEventLog } from './run-event-log.js';

/** Thrown by a store that was detached from its run (the worker handed the run back). */
export class DetachedRunError extends Error {
  constructor() {
    super('the run was handed back to the queue; nothing more is stored by this worker');
    this.name = new.target.name;
  }
}

/**
 * The session store a worker runs with: every call goes to the real store, and each event is
 * published to the run's stream only once the store holds it, in the order it was emitted. So a
 * reader never sees an event the session lost, and a worker that takes over publishes what is
 * missing from the session. Text deltas are never stored: they are published at once, unless an
 * earlier event still waits for the store.
 *
 * The worker holds the run's session for the whole job (its plan is read under that hold); the
 * runner's own lease on it is granted from that hold, so no other worker can slip in between.
 */
export class PublishingStore implements SessionStore {
  readonly getScopedState?: SessionStore['getScopedState'];
  readonly updateScopedState?: SessionStore['updateScopedState'];
  readonly updateScopedKey?: SessionStore['updateScopedKey'];
  readonly #inner: SessionStore;
  readonly #log: RunEventLog;
  readonly #runId: string;
  readonly #held: HeldSession;
  readonly #waiting: AgentEvent[] = [];
  readonly #stored = new Set<string>();
  #publishing: Promise<void> = Promise.resolve();
  #failure: unknown;
  #detached = false;
  #lost: { error: unknown } | undefined;

  constructor(inner: SessionStore, log: RunEventLog, runId: string, held: HeldSession) {
    this.#inner = inner;
    this.#log = log;
    this.#runId = runId;
    this.#held = held;
    if (inner.getScopedState) this.getScopedState = (scope) => inner.getScopedState!(scope);
    if (inner.updateScopedState)
      // Fenced as the run's appends are: a worker that lost the session changes no shared state.
      this.updateScopedState = async (scope, delta, fence) => {
        this.#check();
        try {
          await inner.updateScopedState!(scope, delta, fence);
        } catch (error) {
          this.lose(error);
          throw error;
        }
      };
    if (inner.updateScopedKey)
      // Fenced the same way; only the store's refusal loses the run, not the update's own error
      // (a tool refusing to forget a note that is not there).
      this.updateScopedKey = async (scope, key, update, fence) => {
        this.#check();
        const watched = watchedUpdate(update);
        try {
          return await inner.updateScopedKey!(scope, key, watched.update, fence);
        } catch (error) {
          if (!watched.threw()) this.lose(error);
          throw error;
        }
      };
  }

  /** Takes an event as the run emits it (the runner's `onEvent`). */
  observe = (event: AgentEvent): void => {
    if (this.#detached) return;
    this.#waiting.push(event);
    this.#drain();
  };

  /** Publishes what the store holds once the run is over (an event it never stored is dropped). */
  async settle(): Promise<void> {
    this.#drain();
    this.#waiting.length = 0;
    await this.#publishing;
    if (this.#failure) throw this.#failure;
  }

  /** From now on nothing is stored or published: the run goes back to the queue as it is. */
  detach(): void {
    this.#detached = true;
    this.#waiting.length = 0;
  }

  /**
   * Detaches the store because the session store failed under the run (a write failed, or the
   * session's lease could not be renewed): the job is to be tried again from what the session
   * holds, so nothing more may be stored, not even the run's own end, nor a later write that would
   * leave a gap where the failed one belonged.
   */
  lose(error: unknown): void {
    this.#lost ??= { error };
    this.detach();
  }

  /** Why {@link lose} detached the store, if it did. */
  get lost(): { error: unknown } | undefined {
    return this.#lost;
  }

  async append(id: string, events: readonly AgentEvent[], fence?: SessionLease): Promise<void> {
    this.#check();
    try {
      await this.#inner.append(id, events, fence);
    } catch (error) {
      this.lose(error);
      throw error;
    }
    for (const event of events) this.#stored.add(event.id);
    this.#drain();
  }

  async setCheckpoint(id: string, checkpoint: unknown, fence?: SessionLease): Promise<void> {
    this.#check();
    try {
      await this.#inner.setCheckpoint(id, checkpoint, fence);
    } catch (error) {
      this.lose(error);
      throw error;
    }
  }

  create(init?: SessionInit): Promise<Session> {
    this.#check();
    return this.#inner.create(init);
  }

  get(id: string): Promise<Session | undefined> {
    return this.#inner.get(id);
  }

  list(filter?: { parentId?: string }): Promise<SessionSummary[]> {
    return this.#inner.list(filter);
  }

  delete(id: string): Promise<boolean> {
    this.#check();
    return this.#inner.delete(id);
  }

  async lease(id: string, request: LeaseRequest): Promise<LeaseAttempt> {
    if (id === this.#held.lease.sessionId) return { lease: this.#held.lease };
    return this.#inner.lease(id, request);
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    // The worker's hold renews the session's lease; the runner sees the latest, once the hold is
    // sure of it (the runner confirms its lease this way before each write).
    if (lease.token === this.#held.lease.token) {
      await this.#held.confirm();
      return this.#held.lease;
    }
    return this.#inner.renewLease(lease, ttlMs);
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    if (lease.token === this.#held.lease.token) return;
    return this.#inner.releaseLease(lease);
  }

  #check(): void {
    if (this.#detached) throw new DetachedRunError();
  }

  // Publishes the longest prefix of waiting events that may be shown.
  #drain(): void {
    let n = 0;
    while (n < this.#waiting.length) {
      const event = this.#waiting[n];
      if (event.type !== 'text_delta' && !this.#stored.has(event.id)) break;
      this.#stored.delete(event.id);
      n++;
    }
    if (n === 0) return;
    const batch = this.#waiting.splice(0, n);
    this.#publishing = this.#publishing
      .then(() => this.#log.publish(this.#runId, batch))
      .catch((error: unknown) => {
        this.#failure ??= error;
      });
  }
}
