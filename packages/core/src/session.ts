import type { AgentEvent } from './events.js';
import { InMemoryMemory, type MemoryProvider } from './memory.js';
import type { Message } from './messages.js';
import { newId } from './new-id.js';
import { assertSessionId } from './session-id.js';
import { type LeaseAttempt, type LeaseRequest, LeaseTable, type SessionLease } from './session-lease.js';
import { pageOf, type SessionPage, type SessionPageQuery } from './session-page.js';
import { applyDelta } from './state-delta.js';

/** A conversation as stored: its event log (the source of truth), the state it builds, and links. */
export interface Session {
  /** Layout version of the stored session. */
  version: 1;
  id: string;
  /** The agent the session was started with. */
  agent?: string;
  /** State built from the `stateDelta` of every event. */
  state: Record<string, unknown>;
  events: AgentEvent[];
  /** For a child session (an agent run as a tool): the parent session and the tool call that started it. */
  parentId?: string;
  parentCallId?: string;
  /** A paused invocation's checkpoint, present while the session waits for a decision. */
  checkpoint?: unknown;
  createdAt: number;
  updatedAt: number;
}

/** What `list` tells about a session without loading its events. */
export interface SessionSummary {
  id: string;
  agent?: string;
  parentId?: string;
  parentCallId?: string;
  eventCount: number;
  paused: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What a new session starts with. */
export interface SessionInit {
  id?: string;
  agent?: string;
  state?: Record<string, unknown>;
  parentId?: string;
  parentCallId?: string;
}

/** Where sessions live: in memory, in files, or in a server. */
export interface SessionStore {
  create(init?: SessionInit): Promise<Session>;
  /** The session, or undefined when there is none with that id. */
  get(id: string): Promise<Session | undefined>;
  /**
   * Appends events and applies their state deltas; the session must exist. With `fence`, the write
   * is made only while that lease's token still holds the session, checked atomically with the write
   * (a holder paused past its lease must not write after another took the session): otherwise it
   * throws `SessionLeaseLostError` and writes nothing.
   */
  append(id: string, events: readonly AgentEvent[], fence?: SessionLease): Promise<void>;
  /** Stores (or, with undefined, clears) the checkpoint of a paused invocation; `fence` as for `append`. */
  setCheckpoint(id: string, checkpoint: unknown, fence?: SessionLease): Promise<void>;
  list(filter?: { parentId?: string }): Promise<SessionSummary[]>;
  /**
   * One page of the listing, in the order of `compareSessions` (newest first by creation, ties by
   * id), without reading every summary. Optional: `listSessionPage` pages `list` for a store without it.
   */
  listPage?(query: SessionPageQuery): Promise<SessionPage>;
  /** Deletes the session and its child sessions; false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /**
   * Tries once to take the exclusive lease of a session for one invocation, across processes (and
   * machines, for a shared store). The session need not exist yet, so concurrent first runs on a
   * new id are ordered too. Answers the lease, or who holds it; never waits.
   */
  lease(id: string, request: LeaseRequest): Promise<LeaseAttempt>;
  /** Extends a held lease by `ttlMs` from now; throws `SessionLeaseLostError` when another holder took it. */
  renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease>;
  /** Gives a lease up; nothing happens when it is no longer held by this token. */
  releaseLease(lease: SessionLease): Promise<void>;
  /** Releases files or connections. */
  close?(): Promise<void>;
  /**
   * State shared beyond one session: scope `app` (every session) or `user:<id>` (that user's
   * sessions). Keys keep their `app:`/`user:` prefix. Stores without it keep such keys per session.
   */
  getScopedState?(scope: string): Promise<Record<string, unknown>>;
  /**
   * Applies a delta to a shared scope (a `null` value deletes the key), key by key, so concurrent
   * writers of different keys lose nothing. With `fence` (the lease of the session whose run made the
   * change), the update is made only while that lease still holds its session, checked atomically with
   * the write as for `append`: a holder that lost its lease changes no one's shared state.
   */
  updateScopedState?(scope: string, delta: Record<string, unknown>, fence?: SessionLease): Promise<void>;
  /**
   * Reads one key of a shared scope, gives its latest stored value (undefined when unset) to
   * `update` (synchronous), and stores what it returns (`null` or undefined delete the key), all
   * under the scope's lock, so concurrent updates of the same key (two runs adding to one list) each
   * see the other's result. Answers the new value (undefined when deleted). `update` runs once; when it throws,
   * nothing is written and the error is thrown. `fence` as for {@link SessionStore.updateScopedState}.
   * Stores without it: tools' `state.update` of a shared key falls back to a read then a whole-value
   * write at the turn's end, where the last writer wins.
   */
  updateScopedKey?(
    scope: string,
    key: string,
    update: (current: unknown) => unknown,
    fence?: SessionLease,
  ): Promise<unknown>;
}

/** Applies the `stateDelta` of events to a state object in place; a `null` value deletes the key. */
export function applyStateDelta(state: Record<string, unknown>, events: readonly AgentEvent[]): void {
  for (const event of events) if (event.stateDelta) applyDelta(state, event.stateDelta);
}

/** A summary of a session for listings. */
export function summarise(session: Session): SessionSummary {
  return {
    id: session.id,
    agent: session.agent,
    parentId: session.parentId,
    parentCallId: session.parentCallId,
    eventCount: session.events.length,
    paused: session.checkpoint !== undefined,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

/** A new session object (not yet stored). */
export function newSession(init: SessionInit = {}): Session {
  const now = Date.now();
  return {
    version: 1,
    id: init.id ?? newId(),
    agent: init.agent,
    state: { ...(init.state ?? {}) },
    events: [],
    parentId: init.parentId,
    parentCallId: init.parentCallId,
    createdAt: now,
    updatedAt: now,
  };
}

function isEmpty(state: Record<string, unknown>): boolean {
  for (const _ in state) return false;
  return true;
}

/** A {@link SessionStore} (and {@link MemoryProvider}) in this process's memory. */
export class InMemorySessionStore implements SessionStore, MemoryProvider {
  readonly #sessions = new Map<string, Session>();
  readonly #leases = new LeaseTable();
  // Made on first use: a store per run (what a server or a benchmark may make) seldom needs them.
  #memory: InMemoryMemory | undefined;
  #scopes: Map<string, Record<string, unknown>> | undefined;

  async lease(id: string, request: LeaseRequest): Promise<LeaseAttempt> {
    assertSessionId(id);
    return this.#leases.acquire(id, request);
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    return this.#leases.renew(lease, ttlMs);
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    this.#leases.release(lease);
  }

  async getScopedState(scope: string): Promise<Record<string, unknown>> {
    const state = this.#scopes?.get(scope);
    return state ? structuredClone(state) : {};
  }

  async updateScopedState(
    scope: string,
    delta: Record<string, unknown>,
    fence?: SessionLease,
  ): Promise<void> {
    if (fence) this.#leases.check(fence.sessionId, fence);
    this.#scopes ??= new Map();
    const state = this.#scopes.get(scope) ?? {};
    applyDelta(state, delta);
    this.#scopes.set(scope, state);
  }

  async updateScopedKey(
    scope: string,
    key: string,
    update: (current: unknown) => unknown,
    fence?: SessionLease,
  ): Promise<unknown> {
    if (fence) this.#leases.check(fence.sessionId, fence);
    this.#scopes ??= new Map();
    const state = this.#scopes.get(scope) ?? {};
    // No await between the read and the write: nothing else runs in between in this process.
    const value = update(key in state ? structuredClone(state[key]) : undefined) ?? null;
    // Cloned before anything is written: a value that cannot be stored is refused whole.
    const kept = structuredClone(value);
    applyDelta(state, { [key]: kept });
    this.#scopes.set(scope, state);
    return value === null ? undefined : value;
  }

  async load(sessionId: string): Promise<Message[]> {
    return this.#memory?.load(sessionId) ?? [];
  }

  async save(sessionId: string, messages: readonly Message[]): Promise<void> {
    this.#memory ??= new InMemoryMemory();
    await this.#memory.save(sessionId, messages);
  }

  async clear(sessionId: string): Promise<void> {
    await this.#memory?.clear(sessionId);
  }

  async create(init: SessionInit = {}): Promise<Session> {
    const session = newSession(init);
    assertSessionId(session.id);
    if (this.#sessions.has(session.id)) throw new Error(`session ${session.id} already exists`);
    this.#sessions.set(session.id, session);
    // A new session has no events yet: a copy of its state is all a caller could share with the store.
    return { ...session, state: isEmpty(session.state) ? {} : structuredClone(session.state), events: [] };
  }

  async get(id: string): Promise<Session | undefined> {
    assertSessionId(id);
    const session = this.#sessions.get(id);
    return session && structuredClone(session);
  }

  async append(id: string, events: readonly AgentEvent[], fence?: SessionLease): Promise<void> {
    const session = this.#require(id);
    if (fence) this.#leases.check(id, fence);
    // Events are plain data nobody changes after they are emitted; `get` hands out copies.
    for (const event of events) session.events.push(event);
    applyStateDelta(session.state, events);
    session.updatedAt = Date.now();
  }

  async setCheckpoint(id: string, checkpoint: unknown, fence?: SessionLease): Promise<void> {
    const session = this.#require(id);
    if (fence) this.#leases.check(id, fence);
    if (checkpoint === undefined) delete session.checkpoint;
    else session.checkpoint = structuredClone(checkpoint);
    session.updatedAt = Date.now();
  }

  async list(filter: { parentId?: string } = {}): Promise<SessionSummary[]> {
    return [...this.#sessions.values()]
      .filter((s) => filter.parentId === undefined || s.parentId === filter.parentId)
      .map(summarise);
  }

  async listPage(query: SessionPageQuery): Promise<SessionPage> {
    const { items, next } = pageOf(this.#sessions.values(), query);
    const sessions = items.map(summarise);
    return next ? { sessions, next } : { sessions };
  }

  async delete(id: string): Promise<boolean> {
    if (!this.#sessions.delete(id)) return false;
    for (const child of [...this.#sessions.values()]) if (child.parentId === id) await this.delete(child.id);
    return true;
  }

  #require(id: string): Session {
    const session = this.#sessions.get(id);
    if (!session) throw new Error(`no session with id ${id}`);
    return session;
  }
}
