import type { Pool, PoolClient } from 'pg';
import { isQueryTimeout } from './connection-error.js';
import type { TableNames } from './tables.js';

/** One step of the schema: applied once, in order, recorded in the migrations table. */
export interface Migration {
  version: number;
  name: string;
  sql(t: TableNames): string;
}

/**
 * The store's schema, version by version. Never edit a released step: add the next one.
 * Times are epoch milliseconds (`bigint`), as the core's session fields are.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, events, scoped state and leases',
    sql: (t) => `
      CREATE TABLE ${t.sessions} (
        id text PRIMARY KEY,
        agent text,
        parent_id text,
        parent_call_id text,
        state jsonb NOT NULL DEFAULT '{}',
        checkpoint json,
        messages json,
        event_count integer NOT NULL DEFAULT 0,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX ON ${t.sessions} (parent_id) WHERE parent_id IS NOT NULL;
      CREATE INDEX ON ${t.sessions} (updated_at, id) WHERE parent_id IS NULL;
      CREATE INDEX ON ${t.sessions} (created_at, id);
      -- json, not jsonb: an event reads back exactly as it was written, key order included.
      CREATE TABLE ${t.events} (
        session_id text NOT NULL REFERENCES ${t.sessions} (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        event json NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE ${t.scopes} (
        scope text PRIMARY KEY,
        state jsonb NOT NULL DEFAULT '{}'
      );
      -- A lease may exist before its session does (the first run of a new id takes it).
      CREATE TABLE ${t.leases} (
        session_id text PRIMARY KEY,
        token text NOT NULL,
        holder text NOT NULL,
        holder_where text,
        since bigint NOT NULL,
        expires_at bigint NOT NULL
      );`,
  },
];

/** The newest schema version this package knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Brings the schema up to {@link SCHEMA_VERSION}. Processes starting together serialise on a
 * transaction-scoped advisory lock, so each step runs once; a database newer than this package
 * is refused rather than written to with an older layout.
 */
export async function migrate(pool: Pool, t: TableNames): Promise<number[]> {
  // A database already at this version is left alone: the user the docs suggest for every start
  // after the first holds only SELECT, INSERT, UPDATE and DELETE, and the locked path below needs
  // CREATE on the database (even CREATE SCHEMA IF NOT EXISTS of a schema that is there asks for it).
  const current = await schemaVersion(pool, t);
  if (current !== undefined) {
    if (current > SCHEMA_VERSION) throw newerSchema(current);
    if (current === SCHEMA_VERSION) return [];
  }
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [t.lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${t.migrations} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = await appliedVersions(client, t);
    const newest = Math.max(0, ...applied);
    if (newest > SCHEMA_VERSION) throw newerSchema(newest);
    const ran: number[] = [];
    for (const step of MIGRATIONS) {
      if (applied.has(step.version)) continue;
      await client.query(step.sql(t));
      await client.query(`INSERT INTO ${t.migrations} (version, name) VALUES ($1, $2)`, [
        step.version,
        step.name,
      ]);
      ran.push(step.version);
    }
    await client.query('COMMIT');
    return ran;
  } catch (error) {
    // A statement that got no answer may still be under way on this connection: it is closed.
    if (isQueryTimeout(error)) broken = error as Error;
    else await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
    throw error;
  } finally {
    client.release(broken);
  }
}

async function appliedVersions(client: PoolClient, t: TableNames): Promise<Set<number>> {
  const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${t.migrations}`);
  return new Set(rows.map((r) => r.version));
}

// The newest version recorded, or undefined when the migrations table is not there yet.
async function schemaVersion(pool: Pool, t: TableNames): Promise<number | undefined> {
  const found = await pool.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    t.migrations,
  ]);
  if (!found.rows[0]?.present) return undefined;
  const { rows } = await pool.query<{ newest: number }>(
    `SELECT coalesce(max(version), 0)::integer AS newest FROM ${t.migrations}`,
  );
  return rows[0]?.newest ?? 0;
}

function newerSchema(version: number): Error {
  return new Error(
    `the database schema is at version ${version}, newer than this agentctl knows (${SCHEMA_VERSION}); upgrade agentctl`,
  );
}
