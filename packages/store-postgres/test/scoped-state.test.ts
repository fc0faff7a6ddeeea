import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePostgres } from './support/server.js';

describe('scoped state in PostgreSQL', () => {
  const postgres = usePostgres();

  it('app and user scopes are shared by every store on the database, and concurrent writers lose nothing', async () => {
    const { store, reopen, drop } = postgres.freshStore();
    const other = reopen();
    try {
      await store.updateScopedState('app', { 'app:plan': 'pro' });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? other : store).updateScopedState('user:ada', { [`user:k${i}`]: i }),
        ),
      );
      expect(await other.getScopedState('app')).toEqual({ 'app:plan': 'pro' });
      const ada = await store.getScopedState('user:ada');
      expect(Object.keys(ada)).toHaveLength(40);
      expect(ada['user:k39']).toBe(39);
      await other.updateScopedState('user:ada', { 'user:k0': null, 'user:k1': { nested: [1, 2] } });
      const after = await store.getScopedState('user:ada');
      expect(after['user:k0']).toBeUndefined();
      expect(after['user:k1']).toEqual({ nested: [1, 2] });
      expect(await store.getScopedState('user:bob')).toEqual({});
    } finally {
      await drop();
    }
  });

  it('an update of one key waits for another connection that holds the scope, then builds on what it committed', async () => {
    const { store, schema, drop } = postgres.freshStore();
    const other = new pg.Client({ connectionString: postgres.server().url() });
    const watcher = new pg.Client({ connectionString: postgres.server().url() });
    await other.connect();
    await watcher.connect();
    type Note = { id: number; note: string };
    const remember = (note: string) => (current: unknown) => {
      const notes = (current as Note[] | undefined) ?? [];
      return [...notes, { id: notes.reduce((max, n) => Math.max(max, n.id), 0) + 1, note }];
    };
    try {
      await store.updateScopedKey('user:ada', 'user:memories', remember('first'));
      // Another machine adds a note in a transaction it has not committed yet.
      await other.query('BEGIN');
      await other.query(
        `UPDATE "${schema}"."agentctl_scopes"
            SET state = jsonb_set(state, '{user:memories}', (state -> 'user:memories') || '[{"id": 2, "note": "other"}]')
          WHERE scope = 'user:ada'`,
      );
      const updating = store.updateScopedKey('user:ada', 'user:memories', remember('mine'));
      updating.catch(() => undefined);
      for (let waited = 0; ; waited += 50) {
        const { rows } = await watcher.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
        );
        if (Number(rows[0]?.n) > 0) break;
        if (waited > 15_000) throw new Error('the update never waited for the other transaction');
        await new Promise((r) => setTimeout(r, 50));
      }
      await other.query('COMMIT');
      const expected = [
        { id: 1, note: 'first' },
        { id: 2, note: 'other' },
        { id: 3, note: 'mine' },
      ];
      expect(await updating).toEqual(expected);
      expect((await store.getScopedState('user:ada'))['user:memories']).toEqual(expected);
    } finally {
      await other.end();
      await watcher.end();
      await drop();
    }
  }, 30_000);

  it('concurrent updates of one key from two stores (two connection pools) lose none and repeat no number', async () => {
    const { store, reopen, drop } = postgres.freshStore();
    const other = reopen();
    try {
      const numbers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 ? other : store).updateScopedKey('user:ada', 'user:memories', (current) => {
            const notes = (current as Array<{ id: number }> | undefined) ?? [];
            return [...notes, { id: notes.length + 1, note: `n${i}` }];
          }),
        ),
      );
      const notes = (await store.getScopedState('user:ada'))['user:memories'] as Array<{ id: number }>;
      expect(notes.map((n) => n.id)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      expect(new Set(numbers.map((n) => (n as unknown[]).length)).size).toBe(16);
    } finally {
      await drop();
    }
  }, 30_000);
});
