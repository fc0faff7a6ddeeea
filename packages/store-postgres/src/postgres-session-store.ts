import {
  type AgentEvent,
  assertPageLimit,
  assertSessionExport,
  assertSessionId,
  exportSessionTree,
  flattenExport,
  type LeaseAttempt,
  type LeaseRequest,
  type MemoryProvider,
  type Message,
  newSession,
  type RetentionPolicy,
  type SessionExport,
  type SessionInit,
  type SessionLease,
  SessionLeaseLostError,
  type SessionPage,
  type SessionPageQuery,
  type SessionStore,
  type SessionSummary,
  type StoredSession,
} from '@agentctl/core';
import pg from 'pg';
import { connectionError, describeServer, isQueryTimeout, urlProblem } from './connection-error.js';
import { PostgresStoreError } from './errors.js';
import { LeaseRows } from './lease-rows.js';
import { migrate } from './migrations.js';
import { foldDeltas, foldEventDeltas } from './state-delta-sql.js';
import { type TableNames, tableNames } from './tables.js';

/** Where and how a {@link PostgresSessionStore} keeps sessions. */
export interface PostgresSessionStoreOptions {
  /** `postgres://USER:PASSWORD@HOST:PORT/DATABASE`; ignored when `pool` is given. */
  url?: string;
  /** A pool to use instead of opening one; the store then leaves it open on `close`. */
  pool?: pg.Pool;
  /** The PostgreSQL schema of the tables (created when missing). Default `public`. */
  schema?: string;
  /** Prefix of every table name. Default `agentctl_`. */
  tablePrefix?: string;
  /** Most connections the store opens at once. Default 10. */
  poolSize?: number;
  /** How long to wait for a connection before failing with a clear error. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * How long a statement waits for the server's answer before it fails. Default 30 s: a server
   * that stopped answering (frozen, or behind a dead link) must not hold a request forever.
   */
  queryTimeoutMs?: number;
  retention?: RetentionPolicy;
}

interface SessionRow {
  id: string;
  agent: string | null;
  parent_id: string | null;
  parent_call_id: string | null;
  event_count: number;
  paused: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * A {@link SessionStore} and {@link MemoryProvider} in PostgreSQL, shared by every process and
 * machine that opens the same database: a row per session, an append-only events table keyed by
 * (session, sequence), scoped state, and leases that expire by the database's clock
 * ({@link LeaseRows}). An append is one statement touching one session row and inserting the new
 * events, so it costs the same with 10 sessions or 100,000 and at 10 events or 50,000. The schema
 * is migrated on first use.
 *
 * @example
 * const store = new PostgresSessionStore({ url: process.env.DATABASE_URL });
 * const session = await store.create({ agent: 'triage' });
 * await store.append(session.id, events);
 * await store.close();
 */
export class PostgresSessionStore implements SessionStore, MemoryProvider {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #t: TableNames;
  readonly #url: string;
  readonly #retention: RetentionPolicy | undefined;
  readonly #leases: LeaseRows;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresSessionStoreOptions) {
    this.#t = tableNames(options.schema ?? 'public', options.tablePrefix ?? 'agentctl_');
    this.#retention = options.retention;
    this.#leases = new LeaseRows((text, values) => this.#query(text, values), this.#t.leases);
    if (options.pool) {
      this.#pool = options.pool;
      this.#ownsPool = false;
      this.#url = 'the given pool';
      return;
    }
    const url = options.url ?? '';
    const problem = urlProblem(url);
    if (problem) throw new Error(problem);
    this.#url = url;
    this.#ownsPool = true;
    this.#pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      query_timeout: options.queryTimeoutMs ?? 30_000,
      // An idle pool never keeps a finished command alive.
      allowExitOnIdle: true,
    });
    // A server restart kills idle clients; the pool replaces them, the error must not crash the process.
    this.#pool.on('error', () => undefined);
  }

  /** Where the store connects, for messages: `PostgreSQL at HOST:PORT, database D, user U` (no password). */
  get where(): string {
    return this.#ownsPool ? `PostgreSQL ${describeServer(this.#url)}` : 'PostgreSQL (the given pool)';
  }

  /**
   * Connects and brings the schema up to date (run once; every other method waits for it). Throws
   * `PostgresConnectionError` for a server that cannot be reached or refuses the login.
   */
  open(): Promise<void> {
    this.#ready ??= migrate(this.#pool, this.#t).then(
      () => undefined,
      (error: unknown) => {
        this.#ready = undefined;
        throw connectionError(error, this.#url) ?? error;
      },
    );
    return this.#ready;
  }

  async create(init: SessionInit = {}): Promise<StoredSession> {
    const session: StoredSession = newSession(init);
    assertSessionId(session.id);
    if (session.parentId !== undefined) assertSessionId(session.parentId);
    await this.#insert(session);
    if (session.parentId === undefined && this.#retention) await this.applyRetention(session.id);
    return session;
  }

  /** The session with its events in order, its state and saved messages; undefined when there is none. */
  async get(id: string): Promise<StoredSession | undefined> {
    assertSessionId(id);
    const t = this.#t;
    // One statement, so the events and the state are read from the same snapshot.
    const { rows } = await this.#query<
      SessionRow & {
        state: Record<string, unknown>;
        checkpoint: unknown;
        messages: Message[] | null;
        events: AgentEvent[];
      }
    >(
      `SELECT s.*, s.checkpoint IS NOT NULL AS paused,
              (SELECT coalesce(json_agg(e.event ORDER BY e.seq), '[]'::json) FROM ${t.events} e WHERE e.session_id = s.id) AS events
         FROM ${t.sessions} s WHERE s.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const session: StoredSession = {
      version: 1,
      id: row.id,
      state: row.state,
      events: row.events,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
    if (row.agent !== null) session.agent = row.agent;
    if (row.parent_id !== null) session.parentId = row.parent_id;
    if (row.parent_call_id !== null) session.parentCallId = row.parent_call_id;
    if (row.paused) session.checkpoint = row.checkpoint;
    if (row.messages !== null) session.messages = row.messages;
    return session;
  }

  /**
   * Appends in one statement. With `fence`, the statement first takes a share lock on the lease row
   * holding `fence.token`: a takeover of the lease waits for the write, and a write after a takeover
   * finds no such row and writes nothing.
   */
  async append(id: string, events: readonly AgentEvent[], fence?: SessionLease): Promise<void> {
    assertSessionId(id);
    const t = this.#t;
    const { set, remove } = foldEventDeltas(events);
    // The UPDATE locks the session row, so concurrent appends to one session take numbers in turn.
    const result = await this.#query<{ n: string; fenced: string }>(
      `WITH f AS (${this.#fence(fence, 7)}),
       s AS (
         UPDATE ${t.sessions} AS x
            SET event_count = event_count + $2, state = (state - $3::text[]) || $4::jsonb, updated_at = $5
           FROM f WHERE x.id = f.session_id
      RETURNING event_count),
       added AS (
         INSERT INTO ${t.events} (session_id, seq, event)
         SELECT $1, s.event_count - $2 + e.ord::integer, e.event
           FROM s, json_array_elements($6::json) WITH ORDINALITY AS e(event, ord))
       SELECT (SELECT count(*) FROM s) AS n, (SELECT count(*) FROM f) AS fenced`,
      [
        id,
        events.length,
        remove,
        JSON.stringify(set),
        Date.now(),
        JSON.stringify(events),
        ...(fence ? [fence.token] : []),
      ],
    );
    await this.#written(id, result.rows[0], fence);
  }

  /** Stores or clears the checkpoint; `fence` as for {@link PostgresSessionStore.append}. */
  async setCheckpoint(id: string, checkpoint: unknown, fence?: SessionLease): Promise<void> {
    assertSessionId(id);
    const t = this.#t;
    const result = await this.#query<{ n: string; fenced: string }>(
      `WITH f AS (${this.#fence(fence, 4)}),
       s AS (
         UPDATE ${t.sessions} AS x SET checkpoint = $2::json, updated_at = $3
           FROM f WHERE x.id = f.session_id
      RETURNING 1)
       SELECT (SELECT count(*) FROM s) AS n, (SELECT count(*) FROM f) AS fenced`,
      [
        id,
        checkpoint === undefined ? null : JSON.stringify(checkpoint),
        Date.now(),
        ...(fence ? [fence.token] : []),
      ],
    );
    await this.#written(id, result.rows[0], fence);
  }

  // The rows a write may touch: the session's id, when unfenced; when fenced, the session's lease
  // row if `fence`'s token (parameter `$token`) holds it, locked against a takeover until the write
  // commits (FOR SHARE conflicts with the update that takes a lease; in READ COMMITTED a row a
  // takeover changed meanwhile is read again, and its new token no longer matches).
  #fence(fence: SessionLease | undefined, token: number): string {
    if (!fence) return 'SELECT $1::text AS session_id';
    return `SELECT session_id FROM ${this.#t.leases} WHERE session_id = $1 AND token = $${token}::text FOR SHARE`;
  }

  // Throws why a write touched no session: the lease was lost, or there is no such session.
  async #written(
    id: string,
    row: { n: string; fenced: string } | undefined,
    fence: SessionLease | undefined,
  ): Promise<void> {
    if (Number(row?.n ?? 0) > 0) return;
    if (fence && Number(row?.fenced ?? 0) === 0) {
      throw new SessionLeaseLostError(id, await this.#leases.holder(id).catch(() => undefined));
    }
    throw this.#missing(id);
  }

  async list(filter: { parentId?: string } = {}): Promise<SessionSummary[]> {
    const where = filter.parentId === undefined ? '' : 'WHERE parent_id = $1';
    const { rows } = await this.#query<SessionRow>(
      `SELECT id, agent, parent_id, parent_call_id, event_count, checkpoint IS NOT NULL AS paused, created_at, updated_at
         FROM ${this.#t.sessions} ${where} ORDER BY created_at, id`,
      filter.parentId === undefined ? [] : [filter.parentId],
    );
    return rows.map(summaryOf);
  }

  /**
   * A page by keyset: `ORDER BY created_at DESC, id DESC ... LIMIT`, after the cursor's row, read
   * backwards along the `(created_at, id)` index. Ids compare as `COLLATE "C"` (code points), the
   * order the core's `compareSessions` uses, not the database's locale.
   */
  async listPage(query: SessionPageQuery): Promise<SessionPage> {
    assertPageLimit(query.limit);
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.parentId !== undefined) {
      params.push(query.parentId);
      where.push(`parent_id = $${params.length}`);
    }
    if (query.after) {
      // created_at is a whole number: after a fractional time (a cursor of another store) comes
      // every row created before its ceiling, and none at it (no id sorts below '').
      const whole = Number.isInteger(query.after.createdAt);
      params.push(String(Math.ceil(query.after.createdAt)), whole ? query.after.id : '');
      const [time, id] = [`$${params.length - 1}::bigint`, `$${params.length}::text`];
      // The first term alone is what the index can seek to: without it, the scan starts at the
      // newest row and filters its way down to the cursor, a deep page costing its depth.
      where.push(`created_at <= ${time} AND (created_at < ${time} OR id COLLATE "C" < ${id} COLLATE "C")`);
    }
    params.push(query.limit + 1);
    const { rows } = await this.#query<SessionRow>(
      `SELECT id, agent, parent_id, parent_call_id, event_count, checkpoint IS NOT NULL AS paused, created_at, updated_at
         FROM ${this.#t.sessions} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${params.length}`,
      params,
    );
    const sessions = rows.slice(0, query.limit).map(summaryOf);
    if (rows.length <= query.limit) return { sessions };
    const last = sessions[sessions.length - 1]!;
    return { sessions, next: { createdAt: last.createdAt, id: last.id } };
  }

  async delete(id: string): Promise<boolean> {
    assertSessionId(id);
    return (await this.#deleteTrees([id])).includes(id);
  }

  /** Takes the session's lease (a row of the leases table) unless a live invocation holds it. */
  async lease(id: string, request: LeaseRequest): Promise<LeaseAttempt> {
    assertSessionId(id);
    return this.#leases.acquire(id, request);
  }

  /** Extends a held lease by `ttlMs` from now, by the database's clock. */
  renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    return this.#leases.renew(lease, ttlMs);
  }

  /** Gives a lease up. */
  releaseLease(lease: SessionLease): Promise<void> {
    return this.#leases.release(lease);
  }

  /** State shared by every session (`app`) or by one user's sessions (`user:<id>`). */
  async getScopedState(scope: string): Promise<Record<string, unknown>> {
    const { rows } = await this.#query<{ state: Record<string, unknown> }>(
      `SELECT state FROM ${this.#t.scopes} WHERE scope = $1`,
      [scope],
    );
    return rows[0]?.state ?? {};
  }

  /**
   * Applies a delta to a shared scope in one statement, so concurrent writers lose nothing; with
   * `fence`, the same statement share-locks the fence's lease row as {@link PostgresSessionStore.append}
   * does, and a holder that lost it writes nothing.
   */
  async updateScopedState(
    scope: string,
    delta: Record<string, unknown>,
    fence?: SessionLease,
  ): Promise<void> {
    const { set, remove } = foldDeltas([delta]);
    const upsert = (rows: string) =>
      `INSERT INTO ${this.#t.scopes} AS s (scope, state) ${rows}
       ON CONFLICT (scope) DO UPDATE SET state = (s.state - $2::text[]) || $3::jsonb`;
    if (!fence) {
      await this.#query(upsert('VALUES ($1, $3::jsonb)'), [scope, remove, JSON.stringify(set)]);
      return;
    }
    const { rows } = await this.#query<{ fenced: string }>(
      `WITH f AS (SELECT session_id FROM ${this.#t.leases} WHERE session_id = $4 AND token = $5::text FOR SHARE),
       w AS (${upsert('SELECT $1, $3::jsonb FROM f')} RETURNING 1)
       SELECT (SELECT count(*) FROM f) AS fenced`,
      [scope, remove, JSON.stringify(set), fence.sessionId, fence.token],
    );
    if (Number(rows[0]?.fenced ?? 0) === 0)
      throw new SessionLeaseLostError(
        fence.sessionId,
        await this.#leases.holder(fence.sessionId).catch(() => undefined),
      );
  }

  /**
   * Replaces one key of a shared scope by what `update` makes of its latest value, in one
   * transaction: the scope row (made when missing) is locked `FOR UPDATE` before it is read, so
   * concurrent updates of the scope take turns; with `fence`, the fence's lease row is share-locked
   * first, as {@link PostgresSessionStore.append} does, and a holder that lost it writes nothing.
   */
  async updateScopedKey(
    scope: string,
    key: string,
    update: (current: unknown) => unknown,
    fence?: SessionLease,
  ): Promise<unknown> {
    const t = this.#t;
    let value: unknown;
    let lost = false;
    let thrown: { error: unknown } | undefined;
    try {
      await this.#transaction(async (client) => {
        if (fence) {
          const held = await client.query(
            `SELECT session_id FROM ${t.leases} WHERE session_id = $1 AND token = $2::text FOR SHARE`,
            [fence.sessionId, fence.token],
          );
          if (held.rowCount === 0) {
            lost = true;
            return;
          }
        }
        await client.query(
          `INSERT INTO ${t.scopes} (scope, state) VALUES ($1, '{}'::jsonb) ON CONFLICT (scope) DO NOTHING`,
          [scope],
        );
        const { rows } = await client.query<{ value: unknown }>(
          `SELECT state -> $2::text AS value FROM ${t.scopes} WHERE scope = $1 FOR UPDATE`,
          [scope, key],
        );
        let next: unknown;
        try {
          next = update(rows[0]?.value ?? undefined) ?? null;
        } catch (error) {
          thrown = { error };
          throw error;
        }
        if (next === null) {
          await client.query(`UPDATE ${t.scopes} SET state = state - $2::text WHERE scope = $1`, [
            scope,
            key,
          ]);
          value = undefined;
          return;
        }
        const written = await client.query<{ value: unknown }>(
          `UPDATE ${t.scopes} SET state = state || jsonb_build_object($2::text, $3::jsonb) WHERE scope = $1
           RETURNING state -> $2::text AS value`,
          [scope, key, JSON.stringify(next)],
        );
        value = written.rows[0]?.value;
      });
    } catch (error) {
      // The caller's own error, not wrapped as if the connection had failed.
      if (thrown) throw thrown.error;
      throw error;
    }
    if (lost && fence)
      throw new SessionLeaseLostError(
        fence.sessionId,
        await this.#leases.holder(fence.sessionId).catch(() => undefined),
      );
    return value;
  }

  /** The conversation saved under `sessionId` (MemoryProvider). */
  async load(sessionId: string): Promise<Message[]> {
    assertSessionId(sessionId);
    const { rows } = await this.#query<{ messages: Message[] | null }>(
      `SELECT messages FROM ${this.#t.sessions} WHERE id = $1`,
      [sessionId],
    );
    return rows[0]?.messages ?? [];
  }

  /** Saves the conversation, creating the session when needed (MemoryProvider). */
  async save(sessionId: string, messages: readonly Message[]): Promise<void> {
    assertSessionId(sessionId);
    const now = Date.now();
    await this.#query(
      `INSERT INTO ${this.#t.sessions} AS s (id, messages, created_at, updated_at) VALUES ($1, $2::json, $3, $3)
       ON CONFLICT (id) DO UPDATE SET messages = excluded.messages, updated_at = excluded.updated_at`,
      [sessionId, JSON.stringify(messages), now],
    );
  }

  /** Forgets the saved conversation; the event log stays (MemoryProvider). */
  async clear(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    await this.#query(`UPDATE ${this.#t.sessions} SET messages = NULL WHERE id = $1`, [sessionId]);
  }

  /** The session and all its child sessions as one JSON document. */
  async exportSession(id: string): Promise<SessionExport> {
    return exportSessionTree(this, id, (missing) => this.#missing(missing));
  }

  /** Stores an exported session tree under its original ids (none may exist yet), all or nothing; returns the root id. */
  async importSession(data: unknown): Promise<string> {
    assertSessionExport(data);
    const sessions = flattenExport(data);
    for (const s of sessions) assertSessionId(s.id);
    await this.#transaction(async (client) => {
      for (const session of sessions) await this.#insert(session, client);
    });
    return data.session.id;
  }

  /**
   * Removes the top-level sessions the retention policy no longer keeps (with their child
   * sessions), sparing `keep` and the sessions a run holds; returns the removed ids. `create` calls it for each top-level session.
   */
  async applyRetention(keep?: string): Promise<string[]> {
    const policy = this.#retention ?? {};
    const t = this.#t;
    const doomed: string[] = [];
    if (policy.maxAgeMs !== undefined) {
      const { rows } = await this.#query<{ id: string }>(
        `SELECT id FROM ${t.sessions} WHERE parent_id IS NULL AND updated_at < $1 AND id IS DISTINCT FROM $2`,
        [Date.now() - policy.maxAgeMs, keep ?? null],
      );
      doomed.push(...rows.map((r) => r.id));
    }
    if (policy.maxSessions !== undefined) {
      // The kept session counts toward the limit.
      const allowed = Math.max(0, policy.maxSessions - (keep === undefined ? 0 : 1));
      const { rows } = await this.#query<{ id: string }>(
        `SELECT id FROM ${t.sessions} WHERE parent_id IS NULL AND id IS DISTINCT FROM $1
          ORDER BY updated_at DESC, id DESC OFFSET $2`,
        [keep ?? null, allowed],
      );
      doomed.push(...rows.map((r) => r.id));
    }
    if (doomed.length === 0) return [];
    // A session a run holds is spared: deleted under the run, its next write would fail.
    const held = await this.#leases.held(doomed);
    const free = [...new Set(doomed)].filter((id) => !held.has(id));
    return free.length === 0 ? [] : this.#deleteTrees(free);
  }

  /** Closes the connections (unless the pool was given). */
  async close(): Promise<void> {
    if (this.#ownsPool && !this.#pool.ended) await this.#pool.end();
  }

  async #insert(session: StoredSession, client?: pg.PoolClient): Promise<void> {
    const t = this.#t;
    const run = client ? client.query.bind(client) : this.#query.bind(this);
    try {
      await run(
        `WITH s AS (
           INSERT INTO ${t.sessions} (id, agent, parent_id, parent_call_id, state, checkpoint, messages, event_count, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::json, $7::json, $8, $9, $10) RETURNING id)
         INSERT INTO ${t.events} (session_id, seq, event)
         SELECT s.id, e.ord::integer, e.event FROM s, json_array_elements($11::json) WITH ORDINALITY AS e(event, ord)`,
        [
          session.id,
          session.agent ?? null,
          session.parentId ?? null,
          session.parentCallId ?? null,
          JSON.stringify(session.state),
          session.checkpoint === undefined ? null : JSON.stringify(session.checkpoint),
          session.messages === undefined ? null : JSON.stringify(session.messages),
          session.events.length,
          session.createdAt,
          session.updatedAt,
          JSON.stringify(session.events),
        ],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new PostgresStoreError(session.id, `session ${session.id} already exists in ${this.where}`);
      }
      throw error;
    }
  }

  /** Deletes sessions with all their descendants in one statement; returns the ids removed. */
  async #deleteTrees(roots: string[]): Promise<string[]> {
    const t = this.#t;
    const { rows } = await this.#query<{ id: string }>(
      `WITH RECURSIVE tree(id) AS (
         SELECT id FROM ${t.sessions} WHERE id = ANY($1::text[])
         UNION SELECT c.id FROM ${t.sessions} c JOIN tree ON c.parent_id = tree.id)
       DELETE FROM ${t.sessions} WHERE id IN (SELECT id FROM tree) RETURNING id`,
      [roots],
    );
    return rows.map((r) => r.id);
  }

  #missing(id: string): PostgresStoreError {
    return new PostgresStoreError(id, `no session with id ${id} in ${this.where}`);
  }

  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    await this.open();
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      throw connectionError(error, this.#url) ?? error;
    }
  }

  async #transaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    await this.open();
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw connectionError(error, this.#url) ?? error;
    });
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      // A statement that got no answer may still be under way on this connection: it is closed (the
      // server rolls back), not given back to the pool to fail the next one.
      if (isQueryTimeout(error)) broken = error as Error;
      else await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
      throw connectionError(error, this.#url) ?? error;
    } finally {
      client.release(broken);
    }
  }
}

function summaryOf(row: SessionRow): SessionSummary {
  const summary: SessionSummary = {
    id: row.id,
    eventCount: row.event_count,
    paused: row.paused,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  if (row.agent !== null) summary.agent = row.agent;
  if (row.parent_id !== null) summary.parentId = row.parent_id;
  if (row.parent_call_id !== null) summary.parentCallId = row.parent_call_id;
  return summary;
}
