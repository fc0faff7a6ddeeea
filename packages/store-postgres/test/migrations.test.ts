import { describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  PostgresPermissionError,
  PostgresSessionStore,
  postgresMemoryBackend,
  SCHEMA_VERSION,
} from '../src/index.js';
import { usePostgres } from './support/server.js';

describe('migrations', () => {
  const pg = usePostgres();

  it('create the tables in an empty database on first use, once; a re-run changes nothing', async () => {
    const url = await pg.server().createDatabase('migrate_empty');
    const first = new PostgresSessionStore({ url });
    await first.open();
    await first.close();
    const versions = await pg
      .server()
      .sql('SELECT version, name FROM agentctl_migrations ORDER BY version', 'migrate_empty');
    expect(versions.split('\n')).toEqual(MIGRATIONS.map((m) => `${m.version}|${m.name}`));
    const tables = await pg
      .server()
      .sql(
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'",
        'migrate_empty',
      );
    expect(tables).toBe(
      'agentctl_events,agentctl_leases,agentctl_migrations,agentctl_scopes,agentctl_sessions',
    );
    const again = new PostgresSessionStore({ url });
    await again.create({ id: 'after-rerun' });
    expect((await again.get('after-rerun'))?.id).toBe('after-rerun');
    await again.close();
    expect(await pg.server().sql('SELECT count(*) FROM agentctl_migrations', 'migrate_empty')).toBe(
      String(MIGRATIONS.length),
    );
  });

  it('many processes starting together on an empty database migrate it exactly once', async () => {
    const url = await pg.server().createDatabase('migrate_race');
    const stores = Array.from({ length: 8 }, () => new PostgresSessionStore({ url, poolSize: 2 }));
    try {
      await Promise.all(stores.map((s) => s.open()));
      await Promise.all(stores.map((s, i) => s.create({ id: `s${i}` })));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    expect(await pg.server().sql('SELECT count(*) FROM agentctl_migrations', 'migrate_race')).toBe(
      String(MIGRATIONS.length),
    );
    expect(await pg.server().sql('SELECT count(*) FROM agentctl_sessions', 'migrate_race')).toBe('8');
  });

  it('schema and table prefix keep several stores apart in one database', async () => {
    const url = await pg.server().createDatabase('migrate_prefix');
    const a = new PostgresSessionStore({ url, schema: 'team_a', tablePrefix: '' });
    const b = new PostgresSessionStore({ url, schema: 'team_a', tablePrefix: 'other_' });
    try {
      await a.create({ id: 'only-in-a' });
      expect(await b.get('only-in-a')).toBeUndefined();
      expect(await b.list()).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const tables = await pg
      .server()
      .sql(
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'team_a'",
        'migrate_prefix',
      );
    expect(tables).toBe(
      'events,leases,migrations,other_events,other_leases,other_migrations,other_scopes,other_sessions,scopes,sessions',
    );
    expect(() => new PostgresSessionStore({ url, schema: 'Robert"); DROP TABLE x;--' })).toThrow(
      /schema .* must be 1-40 characters/,
    );
  });

  it("a memory's options.schema and options.table_prefix place the tables of the backend it makes", async () => {
    const url = await pg.server().createDatabase('migrate_options');
    const store = await postgresMemoryBackend({ url, options: { schema: 'desk', tablePrefix: 'yaml_' } });
    try {
      await store.create({ id: 'placed' });
    } finally {
      await store.close();
    }
    const tables = await pg
      .server()
      .sql(
        "SELECT string_agg(schemaname || '.' || tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE '%sessions'",
        'migrate_options',
      );
    expect(tables).toBe('desk.yaml_sessions');
    expect(await pg.server().sql('SELECT id FROM desk.yaml_sessions', 'migrate_options')).toBe('placed');
  });

  it('a database migrated by a newer agentctl is refused, not written to', async () => {
    const url = await pg.server().createDatabase('migrate_newer');
    const store = new PostgresSessionStore({ url });
    await store.open();
    await store.close();
    await pg
      .server()
      .sql(
        `INSERT INTO agentctl_migrations (version, name) VALUES (${SCHEMA_VERSION + 1}, 'future')`,
        'migrate_newer',
      );
    const old = new PostgresSessionStore({ url });
    await expect(old.create({ id: 'x' })).rejects.toThrow(
      new RegExp(
        `schema is at version ${SCHEMA_VERSION + 1}, newer than this agentctl knows \\(${SCHEMA_VERSION}\\)`,
      ),
    );
    await old.close();
    expect(await pg.server().sql('SELECT count(*) FROM agentctl_sessions', 'migrate_newer')).toBe('0');
  });

  it('a user with only SELECT, INSERT, UPDATE, DELETE on migrated tables uses them; one that may not create them is told what it needs', async () => {
    const server = pg.server();
    const url = await server.createDatabase('migrate_rights');
    await server.sql("CREATE ROLE clerk LOGIN PASSWORD 'clerk-pw'");
    await server.sql('REVOKE CREATE ON SCHEMA public FROM PUBLIC', 'migrate_rights');
    await server.sql('REVOKE CREATE ON DATABASE migrate_rights FROM PUBLIC');
    const clerkUrl = `postgres://clerk:clerk-pw@127.0.0.1:${server.port}/migrate_rights`;
    // Before the first start, there is nothing the user may create the tables in.
    const early = await postgresMemoryBackend({ url: clerkUrl }).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(PostgresPermissionError);
    expect((early as Error).message).toBe(
      `url: PostgreSQL at 127.0.0.1:${server.port}, database migrate_rights, user clerk may not use the session tables (permission denied for database migrate_rights): the first start creates them and needs a user with CREATE on the database; later ones need SELECT, INSERT, UPDATE and DELETE on them`,
    );
    // The first start as the owner, then the grants deploy.md gives.
    const owner = new PostgresSessionStore({ url });
    await owner.open();
    await owner.close();
    await server.sql(
      'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO clerk',
      'migrate_rights',
    );
    const clerk = await postgresMemoryBackend({ url: clerkUrl });
    try {
      await clerk.create({ id: 'by-clerk' });
      expect((await clerk.get('by-clerk'))?.id).toBe('by-clerk');
    } finally {
      await clerk.close();
    }
  });
});
