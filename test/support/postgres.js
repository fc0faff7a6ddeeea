// Plain JavaScript (typed by postgres.d.ts) so the benchmarks, which run on Node without a build
// step, start PostgreSQL the same way the tests do.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

const USER = 'agentctl';
const PASSWORD = 'agentctl-test';
const DEBIAN = '/usr/lib/postgresql';

/** The newest of Debian's PostgreSQL binary folders (`/usr/lib/postgresql/<major>/bin`), if any. */
export function postgresBinDir() {
  const majors = existsSync(DEBIAN) ? readdirSync(DEBIAN).filter((v) => /^\d+$/.test(v)) : [];
  return majors
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => join(DEBIAN, major, 'bin'))
    .find((dir) => existsSync(join(dir, 'postgres')));
}

/**
 * Starts a real PostgreSQL (initdb + postgres from /usr/lib/postgresql/N/bin) on a free port of
 * 127.0.0.1 with a temporary data folder, password authentication over TCP, fsync off and small
 * buffers. As root (CI), the server runs as the `postgres` user, since PostgreSQL refuses root.
 * `durable: true` keeps PostgreSQL's default fsync and synchronous commit, for benchmarks that
 * compare it with a store that syncs every write.
 *
 * @param {{ durable?: boolean }} [options]
 * @example
 * const pg = await startPostgres();
 * try { await use(await pg.createDatabase('t1')); } finally { await pg.stop(); }
 *
 * @returns {Promise<import('./postgres').TestPostgres>}
 */
export async function startPostgres(options = {}) {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres); see .ci/services');
  const folder = await mkdtemp(join(tmpdir(), 'agentctl-pg-'));
  const data = join(folder, 'data');
  const asPostgres = process.getuid?.() === 0;
  const owner = asPostgres ? await postgresUser() : undefined;
  if (owner) await chown(folder, owner.uid, owner.gid);
  await chmod(folder, 0o700);
  const pwfile = join(folder, 'pw');
  await writeFile(pwfile, `${PASSWORD}\n`);
  if (owner) await chown(pwfile, owner.uid, owner.gid);
  /** @type {(file: string, args: string[]) => [string, string[]]} */
  const command = (file, args) =>
    asPostgres
      ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', join(bin, file), ...args]]
      : [join(bin, file), args];
  try {
    await run(
      ...command('initdb', [
        '-D',
        data,
        '-U',
        USER,
        `--pwfile=${pwfile}`,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--no-sync',
        '-E',
        'UTF8',
        '--locale=C',
      ]),
    );
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw new Error(`initdb failed: ${error.stderr ?? error}`);
  }
  /** @type {(port: number) => import('node:child_process').ChildProcess} */
  const launch = (port) =>
    spawn(
      ...command('postgres', [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${folder}`,
        ...(options.durable
          ? []
          : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
        '-c',
        'shared_buffers=16MB',
        '-c',
        'max_connections=200',
      ]),
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const server = launch(port);
    const started = await ready(server, bin, port);
    if (started === true) return handle(server, bin, port, folder, launch);
    // Another process took the port between the probe and the start: try another one.
    if (attempt < 3 && /already in use|could not bind/i.test(started)) continue;
    await rm(folder, { recursive: true, force: true });
    throw new Error(`postgres did not start: ${started}`);
  }
}

async function postgresUser() {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

// Resolves true once the server accepts connections, else the log that says why it did not.
function ready(server, bin, port) {
  return new Promise((resolve) => {
    let log = '';
    let done = false;
    const finish = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    server.stderr?.setEncoding('utf8').on('data', (chunk) => {
      if (log.length < 20_000) log += chunk;
      if (log.includes('ready to accept connections')) {
        // Logged before the listener is certain to answer: confirm with pg_isready.
        run(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '10']).then(
          () => finish(true),
          (error) => finish(`pg_isready: ${error}`),
        );
      }
    });
    server.on('exit', (code) => finish(`exited with ${code}: ${log}`));
    const timer = setTimeout(() => {
      server.kill('SIGKILL');
      finish(`not ready after 60 s: ${log}`);
    }, 60_000);
  });
}

function handle(first, bin, port, folder, launch) {
  let server = first;
  // A crashed test runner must not leave the server behind: immediate shutdown on exit.
  const onExit = () => server.kill('SIGQUIT');
  process.once('exit', onExit);
  const url = (database = 'postgres') =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  const sql = async (statement, database = 'postgres') => {
    const { stdout } = await run(
      join(bin, 'psql'),
      ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url(database), '-c', statement],
      { env: { ...process.env, PGCONNECT_TIMEOUT: '10' } },
    );
    return stdout.trim();
  };
  let stopped;
  /** @type {number[]} */
  let frozen = [];
  return {
    url,
    port,
    user: USER,
    password: PASSWORD,
    sql,
    async createDatabase(name) {
      await sql(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      return url(name);
    },
    freeze() {
      // The postmaster and every backend (its children): a frozen machine, not a refused connection.
      frozen = [server.pid, ...childrenOf(server.pid)];
      for (const pid of frozen) signal(pid, 'SIGSTOP');
    },
    thaw() {
      for (const pid of frozen.splice(0)) signal(pid, 'SIGCONT');
    },
    down: () => halt(server),
    async up() {
      server = launch(port);
      const started = await ready(server, bin, port);
      if (started !== true) throw new Error(`postgres did not start again: ${started}`);
    },
    stop() {
      stopped ??= (async () => {
        process.removeListener('exit', onExit);
        for (const pid of frozen.splice(0)) signal(pid, 'SIGCONT');
        await halt(server);
        await rm(folder, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/** The ids of the processes whose parent is `pid` (Linux: from /proc). */
function childrenOf(pid) {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}

// Fast shutdown (SIGINT): sessions are ended, the data folder stays.
async function halt(server) {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
