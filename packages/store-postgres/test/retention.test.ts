import { describe, expect, it } from 'vitest';
import { usePostgres } from './support/server.js';

describe('retention', () => {
  const pg = usePostgres();

  it('max sessions: creating a top-level session removes the least recently updated ones with their children', async () => {
    const { store, drop } = pg.freshStore({ retention: { maxSessions: 3 } });
    try {
      for (const id of ['a', 'b', 'c']) await store.create({ id });
      await store.create({ id: 'a-child', parentId: 'a', parentCallId: 'x' });
      await store.setCheckpoint('a', { touched: true }); // a is now the most recently updated
      await store.create({ id: 'd' });
      expect((await store.list()).map((s) => s.id).sort()).toEqual(['a', 'a-child', 'c', 'd']);
      // Child sessions neither count nor trigger retention.
      await store.create({ id: 'd-child', parentId: 'd', parentCallId: 'y' });
      expect((await store.list()).map((s) => s.id).sort()).toEqual(['a', 'a-child', 'c', 'd', 'd-child']);
    } finally {
      await drop();
    }
  });

  it('max age: sessions not updated for longer are removed, the new one spared', async () => {
    const fresh = pg.freshStore({ retention: { maxAgeMs: 60_000 } });
    try {
      await fresh.store.create({ id: 'old' });
      await fresh.store.create({ id: 'recent' });
      await pg
        .server()
        .sql(
          `UPDATE ${fresh.schema}.agentctl_sessions SET updated_at = updated_at - 3600000 WHERE id = 'old'`,
        );
      await fresh.store.create({ id: 'new' });
      expect((await fresh.store.list()).map((s) => s.id).sort()).toEqual(['new', 'recent']);
      expect(await fresh.store.applyRetention()).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });

  it('spares a session a run holds, and removes it once the run let go', async () => {
    const { store, drop } = pg.freshStore({ retention: { maxSessions: 1 } });
    try {
      await store.create({ id: 'running' });
      const held = await store.lease('running', { holder: 'invocation 1', ttlMs: 60_000 });
      if (!('lease' in held)) throw new Error('the lease was not granted');
      await store.create({ id: 'next' });
      expect((await store.list()).map((s) => s.id).sort()).toEqual(['next', 'running']);
      await store.releaseLease(held.lease);
      await store.create({ id: 'last' });
      expect((await store.list()).map((s) => s.id)).toEqual(['last']);
    } finally {
      await drop();
    }
  });
});
