import { type SessionLease, SessionLeaseLostError } from '@agentctl/core';
import { messageEvent } from '@agentctl/core/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePostgres } from './support/server.js';

// A writer that lost its lease in the milliseconds between its own check and the database getting
// its write: the store refuses the write in the statement that makes it, against the lease row.
describe('PostgresSessionStore: writes fenced by a lease', () => {
  const server = usePostgres();

  async function takeover(
    schema: string,
    then: (write: Promise<void>) => Promise<void>,
    write: () => Promise<void>,
  ) {
    // Another machine takes the session's lease in a transaction it has not committed yet.
    const other = new pg.Client({ connectionString: server.server().url() });
    const watcher = new pg.Client({ connectionString: server.server().url() });
    await other.connect();
    await watcher.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `UPDATE "${schema}"."agentctl_leases" SET token = 'taken', holder = 'machine B' WHERE session_id = 's'`,
      );
      const writing = write();
      writing.catch(() => undefined);
      // The write waits for the takeover's lock: it cannot slip in before the takeover commits.
      for (let waited = 0; ; waited += 50) {
        const { rows } = await watcher.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
        );
        if (Number(rows[0]?.n) > 0) break;
        if (waited > 15_000) throw new Error('the fenced write never waited for the takeover');
        await new Promise((r) => setTimeout(r, 50));
      }
      await other.query('COMMIT');
      await then(writing);
    } finally {
      await other.end();
      await watcher.end();
    }
  }

  async function leased(store: {
    lease: (id: string, r: { holder: string; ttlMs: number }) => Promise<unknown>;
  }) {
    const answer = (await store.lease('s', { holder: 'machine A', ttlMs: 60_000 })) as {
      lease?: SessionLease;
    };
    if (!answer.lease) throw new Error('expected the lease');
    return answer.lease;
  }

  it('an append racing a takeover of its lease waits for it, then is refused with nothing written', async () => {
    const { store, schema } = server.freshStore();
    await store.create({ id: 's' });
    const lease = await leased(store);
    await store.append('s', [messageEvent('before', { n: 1 })], lease);
    await takeover(
      schema,
      async (writing) => {
        await expect(writing).rejects.toBeInstanceOf(SessionLeaseLostError);
        await expect(writing).rejects.toThrow(
          'lost the lease on session s: machine B took it after it expired',
        );
      },
      () => store.append('s', [messageEvent('stale', { n: 2 })], lease),
    );
    const session = await store.get('s');
    expect(session?.events.map((e) => (e as { message: { content: string } }).message.content)).toEqual([
      'before',
    ]);
    expect(session?.state).toEqual({ n: 1 });
    expect((await store.list())[0]?.eventCount).toBe(1);
  }, 30_000);

  it('a checkpoint racing a takeover of its lease is refused likewise', async () => {
    const { store, schema } = server.freshStore();
    await store.create({ id: 's' });
    const lease = await leased(store);
    await store.setCheckpoint('s', { kept: true }, lease);
    await takeover(
      schema,
      (writing) => expect(writing).rejects.toBeInstanceOf(SessionLeaseLostError),
      () => store.setCheckpoint('s', undefined, lease),
    );
    expect((await store.get('s'))?.checkpoint).toEqual({ kept: true });
  }, 30_000);

  it('a shared-state update racing a takeover of its session lease is refused likewise', async () => {
    const { store, schema } = server.freshStore();
    await store.create({ id: 's' });
    const lease = await leased(store);
    await store.updateScopedState('user:ada', { 'user:plan': 'free' }, lease);
    await takeover(
      schema,
      (writing) => expect(writing).rejects.toBeInstanceOf(SessionLeaseLostError),
      () => store.updateScopedState('user:ada', { 'user:plan': 'stale' }, lease),
    );
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:plan': 'free' });
  }, 30_000);

  it('an update of one shared key racing a takeover of its session lease is refused likewise', async () => {
    const { store, schema } = server.freshStore();
    await store.create({ id: 's' });
    const lease = await leased(store);
    await store.updateScopedKey('user:ada', 'user:notes', () => ['kept'], lease);
    await takeover(
      schema,
      (writing) => expect(writing).rejects.toBeInstanceOf(SessionLeaseLostError),
      () =>
        store
          .updateScopedKey('user:ada', 'user:notes', (notes) => [...(notes as string[]), 'stale'], lease)
          .then(() => undefined),
    );
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:notes': ['kept'] });
  }, 30_000);
});
