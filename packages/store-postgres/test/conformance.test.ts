import { sessionStoreConformance } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../src/index.js';
import { usePostgres } from './support/server.js';

describe('PostgresSessionStore conformance (a real PostgreSQL on loopback)', () => {
  const pg = usePostgres();
  const cases = sessionStoreConformance(async () => {
    const fresh = pg.freshStore();
    return { store: fresh.store, reopen: fresh.reopen, dispose: fresh.drop };
  });
  for (const c of cases) it(c.name, c.run, 30_000);
  // Its own pages (the suite's listing case then forbids reading every summary), not `list` paged.
  it('pages itself', () => expect(PostgresSessionStore.prototype.listPage).toBeTypeOf('function'));
});
