import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../packages/store-postgres/src/index.js';
import { agentctl, BIN, cliEnv, removeTempDirs, tempDir } from './support/cli.js';
import { startFreezableProxy } from './support/freezable-proxy.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

// `backend: postgres` from YAML through the built CLI, on a real PostgreSQL started on loopback.
// The `worker` agent naps in a command tool, so two runs started together overlap.
const AGENTS = `kind: agent
name: hello
model: offline/echo
instruction: Answer.
---
kind: agent
name: remember
model: offline/echo
output_key: user:last
---
kind: agent
name: worker
model: offline/auto
instruction: Take a nap, then say so.
tools: [nap]
---
kind: tool
name: nap
description: Sleeps a little.
parameters: { type: object, properties: {} }
command: { argv: [sleep, "2"] }
timeout: 10s
needs_approval: false
`;

const memoryDoc = (extra = '') => `kind: memory
name: shared
backend: postgres
url: \${DATABASE_URL}
${extra}`;

let pg: TestPostgres;
let databases = 0;
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await stopServers();
  await pg?.stop();
  await removeTempDirs();
});

/** A project whose sessions live in a fresh database; returns its folder and the env to run it with. */
async function project(
  memory = memoryDoc(),
): Promise<{ dir: string; env: Record<string, string>; url: string }> {
  const dir = await tempDir('agentctl-pg-cli-');
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: shared\ndefaults: { memory: shared }\n');
  await writeFile(join(dir, 'agents', 'agents.yaml'), AGENTS);
  await writeFile(join(dir, 'agents', 'memory.yaml'), memory);
  const url = await pg.createDatabase(`cli_${++databases}`);
  return { dir, env: { DATABASE_URL: url }, url };
}

async function stored(url: string, id: string) {
  const store = new PostgresSessionStore({ url });
  try {
    return await store.get(id);
  } finally {
    await store.close();
  }
}

describe('agentctl with backend: postgres', () => {
  it('keeps sessions in the database: a second run continues the first', async () => {
    const p = await project();
    const first = await agentctl(['run', 'hello', 'first words', '--session', 's1'], {
      cwd: p.dir,
      env: p.env,
    });
    expect(first.stderr).not.toMatch(/error/);
    expect(first.code).toBe(0);
    const second = await agentctl(['run', 'hello', 'second words', '--session', 's1'], {
      cwd: p.dir,
      env: p.env,
    });
    expect(second.code).toBe(0);
    const session = await stored(p.url, 's1');
    expect(session?.agent).toBe('hello');
    const inputs = session?.events.flatMap((e) => (e.type === 'run_start' ? [e.input] : []));
    expect(inputs).toEqual(['first words', 'second words']);
    expect(new Set(session?.events.map((e) => e.invocationId)).size).toBe(2);
    // Nothing was written to the file store.
    await expect(readFile(join(p.dir, '.agentctl', 'sessions', 's1.jsonl'))).rejects.toThrow();
  });

  it('dev keeps the session in the database across saves (each run uses its version of the store)', async () => {
    const p = await project();
    const child = spawn(process.execPath, [BIN, 'dev', 'hello', '--session', 'dev1'], {
      cwd: p.dir,
      env: cliEnv(p.env),
      stdio: 'pipe',
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const exited = new Promise((resolve) => child.on('close', resolve));
    const answered = (n: number) => () => stderr.split('model call').length - 1 >= n;
    try {
      await waitFor(() => stderr.includes('chatting with hello'), 'dev to start');
      child.stdin.write('first words\n');
      await waitFor(answered(1), 'the first answer');
      await writeFile(join(p.dir, 'agents', 'agents.yaml'), AGENTS.replace('Answer.', 'Answer again.'));
      await waitFor(() => stderr.includes('generation 2 live'), 'the reload');
      child.stdin.write('second words\n');
      await waitFor(() => answered(2)() || /agentctl: /.test(stderr), 'the second answer');
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    // The first version's pool was ended with it: runs after a save used it and failed.
    expect(stderr).not.toMatch(/agentctl: |pool/);
    const session = await stored(p.url, 'dev1');
    const inputs = session?.events.flatMap((e) => (e.type === 'run_start' ? [e.input] : []));
    expect(inputs).toEqual(['first words', 'second words']);
  });

  it('four processes starting together on an empty database create the tables once', async () => {
    const p = await project();
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        agentctl(['run', 'hello', `hi ${n}`, '--session', `first-${n}`], { cwd: p.dir, env: p.env }),
      ),
    );
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const database = new URL(p.url).pathname.slice(1);
    expect(await pg.sql("SELECT string_agg(version::text, ',') FROM agentctl_migrations", database)).toBe(
      '1',
    );
    expect(await pg.sql('SELECT count(*) FROM agentctl_sessions', database)).toBe('4');
  });

  it('two processes on one new session: one runs, the other fails at once naming the holder', async () => {
    const p = await project();
    const run = () =>
      agentctl(['run', 'worker', 'nap please', '--session', 'race'], {
        cwd: p.dir,
        env: p.env,
        timeoutMs: 60_000,
      });
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    const refused = results.find((r) => r.code === 1)!;
    expect(refused.stderr).toMatch(/session race is busy: invocation .* holds it \(since .*, pid \d+ on /);
    expect(refused.stderr).toMatch(/--wait/);
    expect(refused.stderr).not.toMatch(/internal error|\n\s+at /);
    const session = await stored(p.url, 'race');
    expect(new Set(session?.events.map((e) => e.invocationId)).size).toBe(1);
  });

  it('with --wait, the second process waits for the first and then continues the session', async () => {
    const p = await project();
    const run = (extra: string[]) =>
      agentctl(['run', 'worker', 'nap please', '--session', 'queue', ...extra], {
        cwd: p.dir,
        env: p.env,
        timeoutMs: 90_000,
      });
    const results = await Promise.all([run(['--wait', '60s']), run(['--wait', '60s'])]);
    expect(results.map((r) => r.code)).toEqual([0, 0]);
    const session = await stored(p.url, 'queue');
    const ids = session!.events.map((e) => e.invocationId);
    const order = [...new Set(ids)];
    expect(order).toHaveLength(2);
    // Each invocation's events are contiguous: they did not interleave.
    for (const id of order)
      expect(ids.lastIndexOf(id) - ids.indexOf(id) + 1).toBe(ids.filter((x) => x === id).length);
  });

  it('user: state written in one session is in the database for every session of that user', async () => {
    const p = await project();
    const env = p.env;
    expect(
      (await agentctl(['run', 'remember', 'blue', '--user', 'ada', '--session', 'one'], { cwd: p.dir, env }))
        .code,
    ).toBe(0);
    expect(
      (await agentctl(['run', 'remember', 'green', '--user', 'bob', '--session', 'two'], { cwd: p.dir, env }))
        .code,
    ).toBe(0);
    const store = new PostgresSessionStore({ url: p.url });
    try {
      expect(await store.getScopedState('user:ada')).toEqual({ 'user:last': 'blue' });
      expect(await store.getScopedState('user:bob')).toEqual({ 'user:last': 'green' });
    } finally {
      await store.close();
    }
  });

  it('the memory tool: six parallel runs of one user keep six notes, numbered 1 to 6', async () => {
    const p = await project();
    await writeFile(
      join(p.dir, 'agents', 'noter.yaml'),
      'kind: agent\nname: noter\nmodel: offline/auto\ntools: [{ builtin: memory }]\n',
    );
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        agentctl(['run', 'noter', `remember ${n}`, '--user', 'ada'], {
          cwd: p.dir,
          env: p.env,
          timeoutMs: 60_000,
        }),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const told = runs.map((run) => Number(/remembered as note (\d+)/.exec(run.stdout)?.[1]));
    expect(told.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    const store = new PostgresSessionStore({ url: p.url });
    try {
      const notes = (await store.getScopedState('user:ada'))['user:memories'] as Array<{ id: number }>;
      expect(notes.map((n) => n.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('two serve processes on one database: a session started on one continues on the other', async () => {
    const p = await project();
    const [a, b] = await Promise.all([startServe(p.dir, [], p.env), startServe(p.dir, [], p.env)]);
    const post = (url: string, body: unknown) =>
      fetch(`${url}/agents/hello/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ sessionId: string }>);
    const first = await post(a.url, { input: 'on a', stream: false });
    await post(b.url, { input: 'on b', sessionId: first.sessionId, stream: false });
    const seen = (await (await fetch(`${a.url}/sessions/${first.sessionId}`)).json()) as {
      events: Array<{ type: string; input?: string }>;
    };
    expect(seen.events.filter((e) => e.type === 'run_start').map((e) => e.input)).toEqual(['on a', 'on b']);
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
  });

  it('serve answers 503 with Retry-After while the database is away, naming it only to the operator', async () => {
    const p = await project();
    const name = `cli_${databases}`;
    const server = await startServe(p.dir, [], p.env);
    const run = (sessionId: string) =>
      fetch(`${server.url}/agents/hello/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'hi', sessionId, stream: false }),
      });
    expect((await run('kept')).status).toBe(200);
    // The database goes away under the server: its connections end, new ones find no database.
    const rename = async (from: string, to: string) => {
      for (let tries = 0; ; tries++) {
        try {
          await pg.sql(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${from}'; ALTER DATABASE ${from} RENAME TO ${to}`,
          );
          return;
        } catch (error) {
          if (tries > 50) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    await rename(name, `${name}_away`);
    for (const answer of [await run('kept'), await fetch(`${server.url}/sessions`)]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      const { error } = (await answer.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('store_unavailable');
      // The client gets a ref to quote; the operator's log has the ref with the store's own words.
      const ref = /^the session store cannot be reached; try again shortly \(ref ([0-9a-f]{12})\)$/.exec(
        error.message,
      )?.[1];
      expect(ref, error.message).toBeDefined();
      expect(server.stderr()).toContain(`(ref ${ref})`);
    }
    expect(server.stderr()).toContain(
      `cannot connect to PostgreSQL at 127.0.0.1:${pg.port}, database ${name}`,
    );
    expect(server.stderr()).not.toContain(pg.password);
    await rename(`${name}_away`, name);
    expect((await run('kept')).status).toBe(200);
  });

  it('serve answers 503 while the database stops answering (options.query_timeout), and 200 once it does again', async () => {
    const p = await project(memoryDoc('options: { query_timeout: 500ms }\n'));
    const proxy = await startFreezableProxy(pg.port);
    try {
      const server = await startServe(p.dir, [], {
        DATABASE_URL: p.url.replace(`:${pg.port}/`, `:${proxy.port}/`),
      });
      const run = await fetch(`${server.url}/agents/hello/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'hi', sessionId: 'frozen', stream: false }),
      });
      expect(run.status).toBe(200);
      proxy.freeze();
      // A generous bound for a loaded machine: without the timeout the read waited for ever.
      const read = await fetch(`${server.url}/sessions/frozen`, { signal: AbortSignal.timeout(20_000) });
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('5');
      expect(((await read.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      expect(server.stderr()).toContain('no answer within the query timeout (options.query_timeout)');
      proxy.thaw();
      expect((await fetch(`${server.url}/sessions/frozen`)).status).toBe(200);
    } finally {
      proxy.thaw();
      await proxy.close();
    }
  });

  it('sessions list, show, export, import and rm work on the project memory', async () => {
    const p = await project();
    expect(
      (await agentctl(['run', 'hello', 'remember me', '--session', 'kept'], { cwd: p.dir, env: p.env })).code,
    ).toBe(0);
    const list = await agentctl(['sessions', 'list', '--json'], { cwd: p.dir, env: p.env });
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as Array<{ id: string; agent: string; eventCount: number }>;
    expect(listed.map((s) => [s.id, s.agent])).toEqual([['kept', 'hello']]);
    expect(listed[0]!.eventCount).toBeGreaterThan(2);
    expect(
      (await agentctl(['run', 'hello', 'and me', '--session', 'newer'], { cwd: p.dir, env: p.env })).code,
    ).toBe(0);
    // A page from the database, newest first, then the next from its cursor.
    const paged = await agentctl(['sessions', 'list', '--json', '--limit', '1'], { cwd: p.dir, env: p.env });
    const first = JSON.parse(paged.stdout) as { sessions: Array<{ id: string }>; nextCursor: string };
    expect(first.sessions.map((s) => s.id)).toEqual(['newer']);
    const next = await agentctl(
      ['sessions', 'list', '--json', '--limit', '1', '--cursor', first.nextCursor],
      {
        cwd: p.dir,
        env: p.env,
      },
    );
    expect(JSON.parse(next.stdout)).toEqual({ sessions: [expect.objectContaining({ id: 'kept' })] });
    expect((await agentctl(['sessions', 'rm', 'newer'], { cwd: p.dir, env: p.env })).code).toBe(0);
    const show = await agentctl(['sessions', 'show', 'kept'], { cwd: p.dir, env: p.env });
    expect(show.stdout).toMatch(/session kept \(agent hello\)/);
    expect(show.stdout).toMatch(/user: remember me/);
    const file = join(p.dir, 'kept.json');
    expect((await agentctl(['sessions', 'export', 'kept', file], { cwd: p.dir, env: p.env })).code).toBe(0);
    // Into another project's database: the same session, event for event.
    const other = await project();
    const imported = await agentctl(['sessions', 'import', file], { cwd: other.dir, env: other.env });
    expect(imported.stdout).toBe('imported kept\n');
    expect(await stored(other.url, 'kept')).toEqual(await stored(p.url, 'kept'));
    const again = await agentctl(['sessions', 'import', file], { cwd: other.dir, env: other.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /session kept already exists in PostgreSQL at 127\.0\.0\.1:\d+, database cli_\d+/,
    );
    const rm = await agentctl(['sessions', 'rm', 'kept'], { cwd: p.dir, env: p.env });
    expect(rm.stdout).toBe('removed kept\n');
    const gone = await agentctl(['sessions', 'show', 'kept'], { cwd: p.dir, env: p.env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no session kept in PostgreSQL at/);
    const missing = await agentctl(['sessions', 'list', '--memory', 'nope'], { cwd: p.dir, env: p.env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /--memory nope: the project has no memory of that name \(memories: shared\)/,
    );
  });
});

describe('backend: postgres errors are clear, exit 1, never a hang or a stack', () => {
  const refusedPort = async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  };

  it.each([
    [
      'a wrong password',
      () => `postgres://agentctl:wrong-secret@127.0.0.1:${pg.port}/postgres`,
      /password authentication failed/,
    ],
    ['a missing database', () => pg.url('no_such_db'), /the database does not exist/],
    [
      'a refused connection',
      async () => `postgres://agentctl:wrong-secret@127.0.0.1:${await refusedPort()}/x`,
      /connection refused/,
    ],
    [
      'another scheme',
      () => 'mysql://agentctl@127.0.0.1/db',
      /url must start with postgres:\/\/ or postgresql:\/\//,
    ],
    ['no URL at all', () => 'not a url', /url is not a URL/],
  ])('%s', async (_, url, reason) => {
    const p = await project();
    const result = await agentctl(['run', 'hello', 'hi'], { cwd: p.dir, env: { DATABASE_URL: await url() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/agents\/memory\.yaml:4:\d+: error: url/);
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toMatch(/nothing was run/);
    expect(result.stderr).not.toMatch(/wrong-secret|internal error|\n\s+at /);
  });

  it('a server that accepts but never answers fails at the connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const p = await project(memoryDoc('options: { connect_timeout: 1s }\n'));
      const result = await agentctl(['run', 'hello', 'hi'], {
        cwd: p.dir,
        env: { DATABASE_URL: `postgres://agentctl:pw@127.0.0.1:${port}/x` },
        timeoutMs: 30_000,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /url: cannot connect to PostgreSQL at 127\.0\.0\.1:\d+, database x, user agentctl: no answer before the connect timeout/,
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('validate checks the backend offline; validate --connect reaches the server', async () => {
    const noUrl = await project('kind: memory\nname: shared\nbackend: postgres\n');
    const a = await agentctl(['validate'], { cwd: noUrl.dir });
    expect(a.code).toBe(1);
    expect(a.stdout).toMatch(/memory\.yaml:3:\d+: error: backend postgres needs `url`/);

    const badOptions = await project(
      memoryDoc('options: { pool_sise: 4, table_prefix: "Bad-Prefix", connect_timeout: soon }\n'),
    );
    const b = await agentctl(['validate'], { cwd: badOptions.dir });
    expect(b.code).toBe(1);
    expect(b.stdout).toMatch(
      /memory\.yaml:5:\d+: error: backend postgres: unknown option `pool_sise`; did you mean `pool_size`\?/,
    );
    expect(b.stdout).toMatch(
      /memory\.yaml:5:\d+: error: backend postgres: option `table_prefix` is not valid: "Bad-Prefix"; expected prefix of every table name, so several projects can share a schema: lowercase letters, digits and _/,
    );

    const ok = await project();
    // Offline, an unreachable server is not validate's business...
    const offline = await agentctl(['validate'], {
      cwd: ok.dir,
      env: { DATABASE_URL: 'postgres://a:b@127.0.0.1:1/x' },
    });
    expect(offline.code).toBe(0);
    // ...but --connect reports it at the url, and passes once the server answers.
    const refused = await agentctl(['validate', '--connect'], {
      cwd: ok.dir,
      env: { DATABASE_URL: `postgres://a:b@127.0.0.1:${await refusedPort()}/x` },
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /memory\.yaml:4:\d+: error: url: cannot connect to PostgreSQL at 127\.0\.0\.1:\d+, database x, user a: connection refused/,
    );
    const connected = await agentctl(['validate', '--connect'], { cwd: ok.dir, env: ok.env });
    expect(connected.stdout).toMatch(/no problems/);
    expect(connected.code).toBe(0);
  });
});

describe('agentctl sessions finds the project memory whatever its backend', () => {
  it('a file memory with its own path: run writes there and sessions reads there', async () => {
    const dir = await tempDir('agentctl-file-memory-');
    await mkdir(join(dir, 'agents'));
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: files\ndefaults: { memory: kept }\n');
    await writeFile(
      join(dir, 'agents', 'agents.yaml'),
      `${AGENTS}---\nkind: memory\nname: kept\npath: ../data/sessions\n`,
    );
    expect(
      (await agentctl(['run', 'hello', 'stored on disk', '--session', 'disk1'], { cwd: dir })).code,
    ).toBe(0);
    await expect(readFile(join(dir, 'data', 'sessions', 'disk1.jsonl'), 'utf8')).resolves.toMatch(
      /stored on disk/,
    );
    const list = await agentctl(['sessions', 'list', '--json'], { cwd: dir });
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((s) => s.id)).toEqual(['disk1']);
    const rm = await agentctl(['sessions', 'rm', 'nope'], { cwd: dir });
    expect(rm.stderr).toMatch(/no session nope in .*data\/sessions/);
  });
});
