import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { PostgresSessionStore, type PostgresSessionStoreOptions } from '../../src/index.js';

/**
 * One PostgreSQL server for the test file (started before its tests, stopped after), and stores
 * on fresh schemas of it: each test sees an empty database without paying for a new server.
 */
export function usePostgres(): {
  server(): TestPostgres;
  /** A store on a new, empty schema; `reopen` opens another store on the same schema, like a second process. */
  freshStore(options?: Omit<PostgresSessionStoreOptions, 'url' | 'schema'>): FreshStore;
} {
  let pg: TestPostgres | undefined;
  let counter = 0;
  const opened: PostgresSessionStore[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(opened.map((s) => s.close()));
    await pg?.stop();
  }, 60_000);
  const server = () => {
    if (!pg) throw new Error('the PostgreSQL server is not started yet');
    return pg;
  };
  return {
    server,
    freshStore(options = {}) {
      const schema = `t${process.pid}_${++counter}`;
      const open = () => {
        const store = new PostgresSessionStore({ ...options, url: server().url(), schema });
        opened.push(store);
        return store;
      };
      return {
        schema,
        store: open(),
        reopen: open,
        drop: () =>
          server()
            .sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
            .then(() => undefined),
      };
    },
  };
}

/** A store on its own schema. */
export interface FreshStore {
  schema: string;
  store: PostgresSessionStore;
  reopen(): PostgresSessionStore;
  drop(): Promise<void>;
}
