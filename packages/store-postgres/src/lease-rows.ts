import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  holderOf,
  type LeaseAttempt,
  type LeaseHolder,
  type LeaseRequest,
  type SessionLease,
  SessionLeaseLostError,
} from '@agentctl/core';
import type { QueryResult, QueryResultRow } from 'pg';

/** Runs one SQL statement (connecting and migrating first, errors translated) for the store. */
export type Query = <R extends QueryResultRow = QueryResultRow>(
  text: string,
  values: unknown[],
) => Promise<QueryResult<R>>;

// Epoch milliseconds by the database's clock: one clock for every machine sharing the leases.
const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
const WHERE = `pid ${process.pid} on ${hostname()}`;

/**
 * Session leases as rows of the leases table (`session_id` key, token, holder, where, since,
 * expires_at), the store's half of the `SessionStore` lease contract. Taking one is an insert, or an
 * update of a row whose expiry has passed, in one statement, so of many simultaneous askers on any
 * number of machines exactly one gets it; renewing and releasing match on the token.
 */
export class LeaseRows {
  readonly #query: Query;
  readonly #table: string;

  constructor(query: Query, table: string) {
    this.#query = query;
    this.#table = table;
  }

  /** Takes the lease of `sessionId` unless a live one holds it; answers who does otherwise. */
  async acquire(sessionId: string, request: LeaseRequest): Promise<LeaseAttempt> {
    const token = randomUUID();
    for (;;) {
      const taken = await this.#query<{ since: string; expires_at: string }>(
        `INSERT INTO ${this.#table} AS l (session_id, token, holder, holder_where, since, expires_at)
         VALUES ($1, $2, $3, $4, ${NOW_MS}, ${NOW_MS} + $5)
         ON CONFLICT (session_id) DO UPDATE
            SET token = excluded.token, holder = excluded.holder, holder_where = excluded.holder_where,
                since = excluded.since, expires_at = excluded.expires_at
          WHERE l.expires_at <= excluded.since
         RETURNING since, expires_at`,
        [sessionId, token, request.holder, WHERE, Math.ceil(request.ttlMs)],
      );
      const row = taken.rows[0];
      if (row) {
        const lease: SessionLease = {
          sessionId,
          token,
          holder: request.holder,
          since: Number(row.since),
          expiresAt: Number(row.expires_at),
        };
        return { lease };
      }
      const holder = await this.holder(sessionId);
      // Released between the two statements: ask again.
      if (holder) return { busy: holder };
    }
  }

  /** Extends a lease its token still holds (even past its expiry, if nobody took it); throws `SessionLeaseLostError` otherwise. */
  async renew(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    const { rows } = await this.#query<{ expires_at: string }>(
      `UPDATE ${this.#table} SET expires_at = ${NOW_MS} + $3 WHERE session_id = $1 AND token = $2 RETURNING expires_at`,
      [lease.sessionId, lease.token, Math.ceil(ttlMs)],
    );
    const row = rows[0];
    if (!row) throw new SessionLeaseLostError(lease.sessionId, await this.holder(lease.sessionId));
    return { ...lease, expiresAt: Number(row.expires_at) };
  }

  /** Deletes the row if the token still holds it. */
  async release(lease: SessionLease): Promise<void> {
    await this.#query(`DELETE FROM ${this.#table} WHERE session_id = $1 AND token = $2`, [
      lease.sessionId,
      lease.token,
    ]);
  }

  /** Those of `sessionIds` whose lease a live holder has now. */
  async held(sessionIds: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.#query<{ session_id: string }>(
      `SELECT session_id FROM ${this.#table} WHERE session_id = ANY($1) AND expires_at > ${NOW_MS}`,
      [sessionIds],
    );
    return new Set(rows.map((row) => row.session_id));
  }

  /** Who holds the session's lease row (live or lapsed), if anyone. */
  async holder(sessionId: string): Promise<LeaseHolder | undefined> {
    const { rows } = await this.#query<{
      token: string;
      holder: string;
      holder_where: string | null;
      since: string;
      expires_at: string;
    }>(`SELECT token, holder, holder_where, since, expires_at FROM ${this.#table} WHERE session_id = $1`, [
      sessionId,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    return holderOf({
      token: row.token,
      holder: row.holder,
      since: Number(row.since),
      expiresAt: Number(row.expires_at),
      ...(row.holder_where !== null ? { where: row.holder_where } : {}),
    });
  }
}
