/** The store could not reach or log in to its PostgreSQL server; the message names the server, never the password. */
export class PostgresConnectionError extends Error {
  /** The server as {@link describeServer} names it. */
  readonly server: string;

  constructor(server: string, reason: string, options?: { cause?: unknown }) {
    super(`url: cannot connect to PostgreSQL ${server}: ${reason}`, options);
    this.name = new.target.name;
    this.server = server;
  }
}

/**
 * The server let the user in but refused it the store's tables (SQLSTATE 42501) when the store
 * opened: a user without CREATE on a database that has no tables yet, or one without rights on them.
 */
export class PostgresPermissionError extends PostgresConnectionError {
  constructor(server: string, detail: string, options?: { cause?: unknown }) {
    super(server, detail, options);
    this.message = `url: PostgreSQL ${server} may not use the session tables (${detail}): the first start creates them and needs a user with CREATE on the database; later ones need SELECT, INSERT, UPDATE and DELETE on them`;
  }
}

/**
 * The server a URL points at, as it may be printed: `at HOST:PORT, database D, user U`. Neither the
 * password nor the URL itself appears, since the URL usually comes from a secret variable.
 */
export function describeServer(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'at an unreadable URL';
  }
  const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
  const database = decodeURIComponent(parsed.pathname.slice(1)) || '(default)';
  const user = parsed.username ? `, user ${decodeURIComponent(parsed.username)}` : '';
  return `at ${host}:${parsed.port || '5432'}, database ${database}${user}`;
}

/** What is wrong with a connection URL, or undefined when it can be used. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url is not a URL (expected postgres://USER:PASSWORD@HOST:PORT/DATABASE)';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return `url must start with postgres:// or postgresql://, not ${parsed.protocol}//`;
  }
  if (!parsed.hostname && !parsed.searchParams.has('host')) return 'url names no host';
  return undefined;
}

// SQLSTATE classes and socket codes that mean "this server, as configured, cannot be used".
const REASONS: Record<string, string> = {
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user (no pg_hba.conf entry or no such role)',
  '3D000': 'the database does not exist',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'too many connections',
  ECONNREFUSED: 'connection refused (is the server running on that port?)',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'unknown host (name resolution failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'the connection was reset',
};

/**
 * The {@link PostgresConnectionError} an error of `pg` means when it is about reaching or logging in
 * to the server, else undefined (a query's own error passes through as it is).
 */
export function connectionError(error: unknown, url: string): PostgresConnectionError | undefined {
  if (error instanceof PostgresConnectionError) return error;
  const e = error as { code?: string; message?: string } | undefined;
  const code = e?.code;
  const message = e?.message ?? String(error);
  if (code === '42501' && e?.message)
    return new PostgresPermissionError(describeServer(url), e.message, { cause: error });
  let reason = code ? REASONS[code] : undefined;
  if (!reason && isQueryTimeout(error)) reason = 'no answer within the query timeout (options.query_timeout)';
  if (!reason && /timeout|timed out/i.test(message)) reason = 'no answer before the connect timeout';
  if (!reason && /terminated unexpectedly|Connection terminated/i.test(message))
    reason = 'the server closed the connection';
  if (!reason && /SASL|password must be a string|client password/i.test(message))
    reason = 'the server asks for a password and the url has none';
  return reason ? new PostgresConnectionError(describeServer(url), reason, { cause: error }) : undefined;
}

/** True for `pg`'s error of a statement the server did not answer within `query_timeout`. */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}
