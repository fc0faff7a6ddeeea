import { describe, expect, it } from 'vitest';
import { usePostgres } from './support/server.js';

describe('scoped state in PostgreSQL', () => {
  const pg = usePostgres();

  it('app and user scopes are shared by every store on the database, and concurrent writers lose nothing', async () => {
    const { store, reopen, drop } = pg.freshStore();
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
});
