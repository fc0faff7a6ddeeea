import { sessionStoreConformance } from '@agentctl/core/testing';
import { describe, it } from 'vitest';
import { usePostgres } from './support/server.js';

describe('PostgresSessionStore conformance (a real PostgreSQL on loopback)', () => {
  const pg = usePostgres();
  const cases = sessionStoreConformance(async () => {
    const fresh = pg.freshStore();
    return { store: fresh.store, reopen: fresh.reopen, dispose: fresh.drop };
  });
  for (const c of cases) it(c.name, c.run, 30_000);
});
