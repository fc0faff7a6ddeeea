import { compareSessions, type SessionPosition } from '@agentctl/core';
import { messageEvent } from '@agentctl/core/testing';
import pg_ from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresSessionStore, PostgresStoreError } from '../src/index.js';

const { Pool } = pg_;

import { usePostgres } from './support/server.js';

describe('PostgresSessionStore', () => {
  const pg = usePostgres();

  it('export and import round-trip a session tree with state, messages and checkpoint; import is all or nothing', async () => {
    const source = pg.freshStore();
    const target = pg.freshStore();
    try {
      const { store } = source;
      await store.create({ id: 'root', agent: 'triage', state: { company: 'Acme' } });
      await store.append('root', [messageEvent('hi', { queue: 'billing' }), messageEvent('there')]);
      await store.save('root', [{ role: 'user', content: 'hi' }]);
      await store.setCheckpoint('root', { version: 1, pending: ['x'] });
      await store.create({ id: 'kid', agent: 'billing', parentId: 'root', parentCallId: 'c1' });
      await store.append('kid', [messageEvent('refund done')]);
      await store.create({ id: 'grandkid', parentId: 'kid', parentCallId: 'c2' });
      await store.create({ id: 'unrelated' });

      const exported = JSON.parse(JSON.stringify(await store.exportSession('root')));
      expect(await target.store.importSession(exported)).toBe('root');
      for (const id of ['root', 'kid', 'grandkid'])
        expect(await target.store.get(id)).toEqual(await store.get(id));
      expect(await target.store.get('unrelated')).toBeUndefined();
      expect(await target.store.load('root')).toEqual([{ role: 'user', content: 'hi' }]);
      expect(await target.store.exportSession('root')).toEqual(exported);
      // Appending after an import continues the sequence.
      await target.store.append('root', [messageEvent('more')]);
      expect(
        (await target.store.get('root'))?.events.map((e) => (e.type === 'message' ? e.message.content : '')),
      ).toEqual(['hi', 'there', 'more']);

      // A second import collides on the root: nothing of it is written, not even the children.
      await target.store.delete('kid');
      await expect(target.store.importSession(exported)).rejects.toBeInstanceOf(PostgresStoreError);
      expect(await target.store.get('kid')).toBeUndefined();
      await expect(target.store.importSession({ format: 'other' })).rejects.toThrow(
        /"format" must be "agentctl-session"/,
      );
      await expect(store.exportSession('missing')).rejects.toThrow(
        /no session with id missing in PostgreSQL at 127\.0\.0\.1/,
      );
    } finally {
      await Promise.all([source.drop(), target.drop()]);
    }
  });

  it('delete removes the whole tree with its events; the lease of a session outlives it', async () => {
    const { store, drop, schema } = pg.freshStore();
    try {
      await store.create({ id: 'p' });
      await store.create({ id: 'c', parentId: 'p', parentCallId: 'x' });
      await store.append('p', [messageEvent('a'), messageEvent('b')]);
      await store.append('c', [messageEvent('c')]);
      const lease = await store.lease('p', { holder: 'h', ttlMs: 10_000 });
      expect(await store.delete('p')).toBe(true);
      expect(await pg.server().sql(`SELECT count(*) FROM ${schema}.agentctl_events`)).toBe('0');
      expect('busy' in (await store.lease('p', { holder: 'other', ttlMs: 1_000 }))).toBe(true);
      if ('lease' in lease) await store.releaseLease(lease.lease);
    } finally {
      await drop();
    }
  });

  it('the memory interface: save creates the session, load reads it back, clear keeps the events', async () => {
    const { store, drop } = pg.freshStore();
    try {
      expect(await store.load('m')).toEqual([]);
      await store.save('m', [{ role: 'user', content: 'one' }]);
      await store.append('m', [messageEvent('ev')]);
      await store.save('m', [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ]);
      expect(await store.load('m')).toHaveLength(2);
      await store.clear('m');
      expect(await store.load('m')).toEqual([]);
      expect((await store.get('m'))?.events).toHaveLength(1);
    } finally {
      await drop();
    }
  });

  it('state deltas in one append apply in order; events read back exactly as written', async () => {
    const { store, drop } = pg.freshStore();
    try {
      await store.create({ id: 's', state: { gone: 1, kept: 'k' } });
      const odd = {
        ...messageEvent('ünïcødé \u2028 "quoted" \\ back'),
        extra: { z: 1, a: [null, 2.5, 'x'] },
      };
      await store.append('s', [
        messageEvent('1', { x: 1, gone: null }),
        messageEvent('2', { x: null, y: 2 }),
        messageEvent('3', { x: 3, gone: 'again' }),
        odd,
      ]);
      const session = await store.get('s');
      expect(session?.state).toEqual({ kept: 'k', x: 3, y: 2, gone: 'again' });
      expect(JSON.stringify(session?.events.at(-1))).toBe(JSON.stringify(odd));
      await store.append('s', []);
      await expect(store.append('nope', [])).rejects.toThrow(/no session with id nope/);
      await expect(store.setCheckpoint('nope', 1)).rejects.toThrow(/no session with id nope/);
    } finally {
      await drop();
    }
  });
});

describe('PostgresSessionStore pages', () => {
  const pg = usePostgres();

  it("pages ids in code-point order (compareSessions's), whatever collation the database has", async () => {
    const fresh = pg.freshStore();
    try {
      const ids = ['b', 'B', 'a-z', 'a_z', 'a.z', 'aZ', 'A', '0', 'Z9', 'z'];
      for (const id of ids) await fresh.store.create({ id });
      // All in one millisecond, and the ids under a locale's collation (where 'a' < 'B' < 'b').
      const collname = (
        await pg
          .server()
          .sql(
            `SELECT collname FROM pg_collation WHERE collname IN ('und-x-icu', 'en_US.utf8', 'en_US') ORDER BY collname DESC LIMIT 1`,
          )
      ).trim();
      expect(collname).not.toBe('');
      await pg
        .server()
        .sql(
          `UPDATE ${fresh.schema}.agentctl_sessions SET created_at = 1000; ALTER TABLE ${fresh.schema}.agentctl_sessions ALTER COLUMN id TYPE text COLLATE "${collname}"`,
        );
      const seen: string[] = [];
      let after: SessionPosition | undefined;
      for (;;) {
        const page = await fresh.store.listPage({ limit: 3, after });
        seen.push(...page.sessions.map((s) => s.id));
        if (!page.next) break;
        after = page.next;
      }
      expect(seen).toEqual(
        [...ids].sort((a, b) => compareSessions({ id: a, createdAt: 1 }, { id: b, createdAt: 1 })),
      );
    } finally {
      await fresh.drop();
    }
  });

  it('seeks a page from its cursor along the index: a deep page reads about a page of rows, not its depth', async () => {
    const fresh = pg.freshStore();
    const pool = new Pool({ connectionString: pg.server().url(), max: 2 });
    // The queries the store sends, to ask PostgreSQL how it runs the listing's.
    const sent: Array<{ text: string; values: unknown[] }> = [];
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      sent.push({ text, values: values ?? [] });
      return query(text, values);
    };
    const store = new PostgresSessionStore({ pool, schema: fresh.schema });
    try {
      await store.create({ id: 'seed' });
      await pg
        .server()
        .sql(
          `INSERT INTO ${fresh.schema}.agentctl_sessions (id, created_at, updated_at) SELECT 's' || g, 1000 + g / 3, 1000 FROM generate_series(1, 30000) g; ANALYZE ${fresh.schema}.agentctl_sessions`,
        );
      // Deep in the listing: 20,000 rows are newer than the cursor (s9999 was made at 1000 + 9999 / 3).
      const page = await store.listPage({ limit: 20, after: { createdAt: 4333, id: 's9999' } });
      expect(page.sessions).toHaveLength(20);
      const listing = sent.findLast((q) => q.text.includes('ORDER BY created_at DESC'))!;
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${listing.text}`,
        listing.values,
      );
      const read = rowsRead(rows[0]!['QUERY PLAN']);
      expect(read).toBeLessThan(100);
    } finally {
      await store.close();
      await pool.end();
      await fresh.drop();
    }
  });
});

// Rows every scan of a JSON plan read (returned plus removed by its filter).
function rowsRead(plan: unknown): number {
  let total = 0;
  const visit = (node: Record<string, unknown>) => {
    if (String(node['Node Type']).includes('Scan'))
      total += Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
  };
  for (const top of plan as Array<{ Plan: Record<string, unknown> }>) visit(top.Plan);
  return total;
}
