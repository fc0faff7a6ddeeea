import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port.js';
import { startFreezableProxy } from '../../../test/support/freezable-proxy.js';
import {
  PostgresConnectionError,
  PostgresSessionStore,
  postgresMemoryBackend,
  postgresStoreFromSpec,
} from '../src/index.js';
import { usePostgres } from './support/server.js';

describe('connection problems are clear errors, never a hang', () => {
  const pg = usePostgres();

  it('a wrong password names the server and hides the password', async () => {
    const url = `postgres://agentctl:hunter2@127.0.0.1:${pg.server().port}/postgres`;
    const error = await postgresMemoryBackend({ url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresConnectionError);
    expect((error as Error).message).toBe(
      `url: cannot connect to PostgreSQL at 127.0.0.1:${pg.server().port}, database postgres, user agentctl: password authentication failed`,
    );
  });

  it('a closed port is refused; the store can be used once the server is there', async () => {
    const store = new PostgresSessionStore({
      url: `postgres://agentctl:x@127.0.0.1:${await freePort()}/postgres`,
    });
    await expect(store.list()).rejects.toThrow(/connection refused/);
    await store.close();
  });

  it('a server that never answers fails at the connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const spec = { url: `postgres://u:p@127.0.0.1:${port}/db`, options: { connectTimeout: '300ms' } };
      await expect(postgresMemoryBackend(spec)).rejects.toThrow(/no answer before the connect timeout/);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('a server that stops answering fails each statement at the query timeout, and is used again once it answers', async () => {
    const server = pg.server();
    const proxy = await startFreezableProxy(server.port);
    const store = new PostgresSessionStore({
      url: `postgres://${server.user}:${server.password}@127.0.0.1:${proxy.port}/postgres`,
      schema: 'frozen_link',
      poolSize: 1,
      queryTimeoutMs: 300,
    });
    // Without a bound the statement waited as long as the server did: forever, for a dead link.
    const bounded = <T>(work: Promise<T>) =>
      Promise.race([
        work.then(
          () => 'answered',
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000)),
      ]);
    try {
      await store.create({ id: 'before' });
      proxy.freeze();
      const read = await bounded(store.get('before'));
      expect(read).toBeInstanceOf(PostgresConnectionError);
      expect((read as Error).message).toBe(
        `url: cannot connect to PostgreSQL at 127.0.0.1:${proxy.port}, database postgres, user agentctl: no answer within the query timeout (options.query_timeout)`,
      );
      // A transaction too (an import), whose connection is closed rather than handed to the next statement.
      const exported = await (async () => {
        proxy.thaw();
        const tree = await store.exportSession('before');
        proxy.freeze();
        return { ...tree, session: { ...tree.session, id: 'imported' } };
      })();
      expect(await bounded(store.importSession(exported))).toBeInstanceOf(PostgresConnectionError);
      proxy.thaw();
      expect((await store.get('before'))?.id).toBe('before');
      expect(await store.get('imported')).toBeUndefined();
    } finally {
      proxy.thaw();
      await store.close();
      await proxy.close();
    }
  });

  it('spec mistakes are named by field before any connection', () => {
    expect(() => postgresStoreFromSpec({})).toThrow(/^url: backend postgres needs a connection URL/);
    expect(() => postgresStoreFromSpec({ url: 'redis://x' })).toThrow(/url must start with postgres:\/\//);
    expect(() => postgresStoreFromSpec({ url: 'postgres://h/db', options: { schema: 'A B' } })).toThrow(
      /options\.schema "A B"/,
    );
    expect(() =>
      postgresStoreFromSpec({ url: 'postgres://h/db', options: { connectTimeout: 'soon' } }),
    ).toThrow(/options\.connect_timeout: "soon" is not a duration/);
    expect(() => postgresStoreFromSpec({ url: 'postgres://h/db', retention: { maxSessions: 0 } })).toThrow(
      /retention\.max_sessions must be a whole number/,
    );
  });
});
