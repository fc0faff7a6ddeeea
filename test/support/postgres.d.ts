/** A PostgreSQL server started for a test on 127.0.0.1, with its own temporary data folder. */
export interface TestPostgres {
  /** `postgres://agentctl:<password>@127.0.0.1:<port>/<database>` (default database `postgres`). */
  url(database?: string): string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Creates a database (a fresh one per test keeps tests apart); returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL through `psql` (no client library needed) and returns its unaligned output. */
  sql(statement: string, database?: string): Promise<string>;
  /** Stops the server and every backend of it (SIGSTOP), as a frozen machine: connections stay open, nothing answers. */
  freeze(): void;
  /** Lets a {@link freeze}d server go on (SIGCONT). */
  thaw(): void;
  /** Stops the server (fast shutdown: its sessions end), keeping its data folder and port for {@link up}. */
  down(): Promise<void>;
  /** Starts the server {@link down} stopped again, on the same port with the same data. */
  up(): Promise<void>;
  /** Stops the server (fast shutdown) and removes its data folder. */
  stop(): Promise<void>;
}

/** The newest of Debian's PostgreSQL binary folders (`/usr/lib/postgresql/<major>/bin`), if any. */
export function postgresBinDir(): string | undefined;

/**
 * Starts a real PostgreSQL (initdb + postgres from /usr/lib/postgresql/N/bin) on a free port of
 * 127.0.0.1 with a temporary data folder, password authentication over TCP, fsync off and small
 * buffers. As root (CI), the server runs as the `postgres` user, since PostgreSQL refuses root.
 * `durable: true` keeps PostgreSQL's default fsync and synchronous commit (for benchmarks).
 */
export function startPostgres(options?: { durable?: boolean }): Promise<TestPostgres>;
