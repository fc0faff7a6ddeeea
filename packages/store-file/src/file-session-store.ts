import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  type AgentEvent,
  assertSessionId,
  type LeaseAttempt,
  type LeaseRequest,
  type MemoryProvider,
  type Message,
  makeFolders,
  newSession,
  pageOf,
  type SessionInit,
  type SessionLease,
  type SessionPage,
  type SessionPageQuery,
  type SessionStore,
  type SessionSummary,
} from '@agentctl/core';
import { SessionExistsError, SessionNotFoundError } from './errors.js';
import { acquireLock, type LockOptions } from './file-lock.js';
import type { IndexEntry } from './index-entry.js';
import { KeyedQueue } from './keyed-queue.js';
import { LeaseFile } from './lease-file.js';
import { type RetentionPolicy, sessionsToRemove } from './retention.js';
import { entryFromFile, sessionFileIds } from './scan-sessions.js';
import { ScopedStateFiles } from './scoped-state.js';
import {
  assertSessionExport,
  exportSessionTree,
  flattenExport,
  type SessionExport,
} from './session-export.js';
import { SessionIndex } from './session-index.js';
import type { LogRecord } from './session-log.js';
import { SessionLogs } from './session-logs.js';
import type { StoredSession } from './stored-session.js';

/** Where and how a {@link FileSessionStore} keeps sessions. */
export interface FileSessionStoreOptions {
  /** The sessions folder. Default `.agentctl/sessions` under the current directory. */
  path?: string;
  /** Old sessions to remove when a new top-level session is created. */
  retention?: RetentionPolicy;
  /**
   * fsync files and the folder on every write (default true); off only trades crash safety for speed.
   * A new session is not fsynced on its own: it becomes durable with its first append.
   */
  durable?: boolean;
  /** Lock waiting and stale-lock bounds. */
  lock?: LockOptions;
}

/** `list` filter: by parent, and `verify` to check every file against the index (finds corrupt files). */
export interface FileListFilter {
  parentId?: string;
  /** Stat every session file, re-read those changed behind the store's back and mark corrupt ones. */
  verify?: boolean;
}

/** A page of the file store's listing; `verify` as for {@link FileListFilter}, for the page's files only. */
export interface FilePageQuery extends SessionPageQuery {
  verify?: boolean;
}

/** A page of {@link FileSessionSummary}s. */
export interface FileSessionPage extends SessionPage {
  sessions: FileSessionSummary[];
}

/** A listed session; `corrupt` says why its file cannot be read. */
export interface FileSessionSummary extends SessionSummary {
  corrupt?: string;
}

/**
 * A {@link SessionStore} and {@link MemoryProvider} keeping one append-only log per session
 * (`<id>.jsonl`: a snapshot line, then a line per write) plus an index, so an append costs the same
 * at 10 events or 50,000, with 10 sessions or 100,000. Writes to one session are queued in this
 * process and locked (`<id>.lock`) across processes; `<id>.lease` holds the session for one invocation.
 *
 * @example
 * const store = new FileSessionStore({ path: '.agentctl/sessions', retention: { maxSessions: 100 } });
 * const session = await store.create({ agent: 'triage' });
 * await store.append(session.id, events);
 */
export class FileSessionStore implements SessionStore, MemoryProvider {
  /** Absolute path of the sessions folder. */
  readonly path: string;
  readonly #options: FileSessionStoreOptions;
  readonly #durable: boolean;
  readonly #queue = new KeyedQueue();
  readonly #scopes: ScopedStateFiles;
  readonly #index: SessionIndex;
  readonly #logs: SessionLogs;
  #ready: Promise<unknown> | undefined;

  constructor(options: FileSessionStoreOptions = {}) {
    this.path = resolve(options.path ?? '.agentctl/sessions');
    this.#options = options;
    this.#durable = options.durable ?? true;
    this.#index = new SessionIndex(this.path, this.#durable, options.lock ?? {});
    this.#logs = new SessionLogs(this.path, this.#durable);
    this.#scopes = new ScopedStateFiles(this.path, options.lock);
  }

  /** State shared by every session (`app`) or by one user's sessions (`user:<id>`). */
  getScopedState(scope: string): Promise<Record<string, unknown>> {
    return this.#scopes.get(scope);
  }

  /**
   * Applies a delta to a shared scope, safely across processes; with `fence`, under the lock of the
   * fence's session and only while `<id>.lease` still holds its token, as for {@link FileSessionStore.append}.
   */
  updateScopedState(scope: string, delta: Record<string, unknown>, fence?: SessionLease): Promise<void> {
    if (!fence) return this.#scopes.update(scope, delta);
    // Session lock first, then the scope's: the only order in which both are ever held.
    return this.#withLock(fence.sessionId, async () => {
      await this.#leaseFile(fence.sessionId).check(fence.sessionId, fence);
      await this.#scopes.update(scope, delta);
    });
  }

  /**
   * Replaces one key of a shared scope by what `update` makes of its latest value, under the scope's
   * lock across processes; with `fence`, under the fence's session lock and lease check as for
   * {@link FileSessionStore.updateScopedState}.
   */
  updateScopedKey(
    scope: string,
    key: string,
    update: (current: unknown) => unknown,
    fence?: SessionLease,
  ): Promise<unknown> {
    if (!fence) return this.#scopes.updateKey(scope, key, update);
    return this.#withLock(fence.sessionId, async () => {
      await this.#leaseFile(fence.sessionId).check(fence.sessionId, fence);
      return this.#scopes.updateKey(scope, key, update);
    });
  }

  /** Absolute path of a session's log (`<id>.jsonl`). */
  fileOf(id: string): string {
    assertSessionId(id);
    return this.#logs.pathOf(id);
  }

  async create(init: SessionInit = {}): Promise<StoredSession> {
    const session: StoredSession = newSession(init);
    assertSessionId(session.id);
    if (session.parentId !== undefined) assertSessionId(session.parentId);
    await this.#ensureDir();
    await this.#index.put(await this.#logs.create(session));
    if (session.parentId === undefined && this.#options.retention) await this.#applyRetention(session.id);
    return session;
  }

  /** The session with its events, state and saved messages; throws `CorruptSessionError` for a bad file. */
  async get(id: string): Promise<StoredSession | undefined> {
    assertSessionId(id);
    return this.#logs.read(id);
  }

  /** Takes the session's lease (`<id>.lease`) unless a live invocation holds it. */
  async lease(id: string, request: LeaseRequest): Promise<LeaseAttempt> {
    return this.#withLock(id, () => this.#leaseFile(id).acquire(id, request));
  }

  /** Extends a held lease. */
  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    return this.#withLock(lease.sessionId, () => this.#leaseFile(lease.sessionId).renew(lease, ttlMs));
  }

  /** Gives a lease up, removing `<id>.lease`. */
  async releaseLease(lease: SessionLease): Promise<void> {
    await this.#withLock(lease.sessionId, () => this.#leaseFile(lease.sessionId).release(lease));
  }

  #leaseFile(id: string): LeaseFile {
    assertSessionId(id);
    return new LeaseFile(join(this.path, `${id}.lease`));
  }

  /** Appends under the session's lock; with `fence`, only if `<id>.lease` still holds its token, checked under that lock. */
  async append(id: string, events: readonly AgentEvent[], fence?: SessionLease): Promise<void> {
    await this.#write(id, { t: Date.now(), events: [...events] }, undefined, fence);
  }

  async setCheckpoint(id: string, checkpoint: unknown, fence?: SessionLease): Promise<void> {
    await this.#write(
      id,
      checkpoint === undefined ? { t: Date.now(), clear: 'checkpoint' } : { t: Date.now(), checkpoint },
      undefined,
      fence,
    );
  }

  async list(filter: FileListFilter = {}): Promise<FileSessionSummary[]> {
    // No folder yet, no sessions: listing makes nothing (on a read-only disk it could not).
    if (!(await stat(this.path).catch(() => undefined))) return [];
    // Without `verify`, the index as held (no copy): an agent tool asks for its children on every
    // call, and a copy of 100,000 entries each time made that call cost the number of sessions.
    const entries = filter.verify ? await this.#verifiedEntries() : await this.#index.view();
    const listed: IndexEntry[] = [];
    for (const e of entries.values())
      if (filter.parentId === undefined || e.parentId === filter.parentId) listed.push(e);
    return listed
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
      .map(({ bytes: _bytes, ...summary }) => summary);
  }

  /**
   * A page of the listing out of the index alone: no session file is opened, and only the page is
   * sorted. With `verify`, the page's files (only theirs) are checked as `list` checks every file.
   */
  async listPage(query: FilePageQuery): Promise<FileSessionPage> {
    if (!(await stat(this.path).catch(() => undefined))) return { sessions: [] };
    const { items, next } = pageOf((await this.#index.view()).values(), query);
    const entries: IndexEntry[] = [];
    for (const entry of items) {
      const checked = query.verify ? await this.#verified(entry) : entry;
      if (checked) entries.push(checked);
    }
    const sessions = entries.map(({ bytes: _bytes, ...summary }) => summary);
    return next ? { sessions, next } : { sessions };
  }

  async delete(id: string): Promise<boolean> {
    assertSessionId(id);
    const entries = await this.#index.read();
    for (const child of entries.values()) if (child.parentId === id) await this.delete(child.id);
    return this.#withLock(id, async () => {
      const existed = await this.#logs.remove(id);
      if (existed || entries.has(id)) await this.#index.remove(id);
      return existed;
    });
  }

  async close(): Promise<void> {
    await this.#queue.idle();
  }

  /** The conversation saved under `sessionId` (MemoryProvider). */
  async load(sessionId: string): Promise<Message[]> {
    return (await this.get(sessionId))?.messages ?? [];
  }

  /** Saves the conversation into the session's log, creating the session when needed (MemoryProvider). */
  async save(sessionId: string, messages: readonly Message[]): Promise<void> {
    await this.#write(sessionId, { t: Date.now(), messages: [...messages] }, () =>
      newSession({ id: sessionId }),
    );
  }

  /** Forgets the saved conversation; the event log stays (MemoryProvider). */
  async clear(sessionId: string): Promise<void> {
    if (!(await this.get(sessionId))) return;
    await this.#write(sessionId, { t: Date.now(), clear: 'messages' });
  }

  /** The session and all its child sessions as one JSON document. */
  async exportSession(id: string): Promise<SessionExport> {
    return exportSessionTree(this, id, (missing) => new SessionNotFoundError(missing, this.path));
  }

  /** Stores an exported session tree under its original ids (none may exist yet); returns the root id. */
  async importSession(data: unknown): Promise<string> {
    assertSessionExport(data);
    const sessions = flattenExport(data);
    for (const s of sessions) {
      assertSessionId(s.id);
      if (await this.get(s.id)) throw new SessionExistsError(s.id, this.path);
    }
    await this.#ensureDir();
    // Imported sessions hold what users wrote: each is made durable as it is created.
    for (const session of sessions) await this.#index.put(await this.#logs.create(session, true));
    return data.session.id;
  }

  /** Rebuilds the index from the session files (after copying files in by hand, for example). */
  async reindex(): Promise<void> {
    await this.#ensureDir();
    await this.#index.rebuild();
  }

  /** Appends one record to a session's log under its lock (fenced by a lease when given), and records the new summary in the index. */
  async #write(
    id: string,
    record: LogRecord,
    create?: () => StoredSession,
    fence?: SessionLease,
  ): Promise<void> {
    await this.#withLock(id, async () => {
      // Leases are taken under the same lock: none can change hands between the check and the write.
      if (fence) await this.#leaseFile(id).check(id, fence);
      await this.#index.put(await this.#logs.append(id, record, create));
    });
  }

  /** Runs `task` holding the session's lock: queued within this process, `<id>.lock` across processes. */
  async #withLock<T>(id: string, task: () => Promise<T>): Promise<T> {
    assertSessionId(id);
    await this.#ensureDir();
    return this.#queue.run(id, async () => {
      const release = await acquireLock(join(this.path, `${id}.lock`), this.#options.lock);
      try {
        return await task();
      } finally {
        await release();
      }
    });
  }

  async #applyRetention(keep: string): Promise<void> {
    const policy = this.#options.retention ?? {};
    const doomed = sessionsToRemove((await this.#index.read()).values(), policy, Date.now(), keep);
    for (const id of doomed) {
      // A session a run holds is spared: deleted under the run, its next write would fail.
      const held = await this.lease(id, { holder: 'retention', ttlMs: 60_000 });
      if ('busy' in held) continue;
      try {
        await this.delete(id);
      } finally {
        await this.releaseLease(held.lease);
      }
    }
  }

  /** The index checked against the files: missing files dropped, changed ones re-read, strays added. */
  async #verifiedEntries(): Promise<Map<string, IndexEntry>> {
    const entries = await this.#index.read();
    const onDisk = new Set(await sessionFileIds(this.path));
    const suspects = [...onDisk].filter((id) => !entries.has(id));
    for (const entry of entries.values()) {
      if (!onDisk.has(entry.id)) {
        entries.delete(entry.id);
        continue;
      }
      if ((await this.#fileSize(entry.id)) !== entry.bytes || entry.corrupt) suspects.push(entry.id);
    }
    for (const id of suspects) {
      const entry = await entryFromFile(this.path, id);
      if (entry) entries.set(id, entry);
      else entries.delete(id);
    }
    return entries;
  }

  /** One index entry checked against its file: undefined when the file is gone, re-read when it changed. */
  async #verified(entry: IndexEntry): Promise<IndexEntry | undefined> {
    const size = await this.#fileSize(entry.id);
    if (size === undefined) return undefined;
    return size === entry.bytes && !entry.corrupt ? entry : entryFromFile(this.path, entry.id);
  }

  async #fileSize(id: string): Promise<number | undefined> {
    const info = await stat(this.#logs.pathOf(id))
      .catch(() => stat(this.#logs.legacyPathOf(id)))
      .catch(() => undefined);
    return info?.size;
  }

  #ensureDir(): Promise<unknown> {
    this.#ready ??= makeFolders(this.path).catch(async (error: unknown) => {
      // Tried again next time: the folder may become writable (space freed, permissions fixed).
      this.#ready = undefined;
      throw await unwritableFolder(this.path, error);
    });
    return this.#ready;
  }
}

// A recursive mkdir on a read-only file system can fail as ENOENT: the nearest folder that exists
// says why it cannot be written (EROFS, EACCES), with its path.
async function unwritableFolder(path: string, error: unknown): Promise<unknown> {
  let dir = path;
  while (!(await stat(dir).catch(() => undefined)) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    await access(dir, constants.W_OK);
  } catch (refused) {
    return refused;
  }
  return error;
}
