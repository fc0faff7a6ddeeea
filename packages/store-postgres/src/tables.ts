/** Where a store's tables live: a PostgreSQL schema and a prefix for every table name. */
export interface TableNames {
  /** The schema, quoted for SQL. */
  schema: string;
  migrations: string;
  sessions: string;
  events: string;
  scopes: string;
  leases: string;
  /** Key of the advisory lock that orders migrations of this schema and prefix across processes. */
  lockKey: string;
}

// Names go into SQL text (identifiers cannot be parameters), so only a safe alphabet is accepted.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;

/** Checks a schema name or table prefix; returns the problem, or undefined when it is usable. */
export function identifierProblem(value: string, what: string, allowEmpty = false): string | undefined {
  if (allowEmpty && value === '') return undefined;
  return IDENTIFIER.test(value)
    ? undefined
    : `${what} ${JSON.stringify(value)} must be 1-40 characters from a-z 0-9 _, starting with a letter or _`;
}

/** The quoted, qualified names of a store's tables in `schema` with `prefix`. */
export function tableNames(schema: string, prefix: string): TableNames {
  for (const problem of [
    identifierProblem(schema, 'schema'),
    identifierProblem(prefix, 'table_prefix', true),
  ])
    if (problem) throw new Error(problem);
  const table = (name: string) => `"${schema}"."${prefix}${name}"`;
  return {
    schema: `"${schema}"`,
    migrations: table('migrations'),
    sessions: table('sessions'),
    events: table('events'),
    scopes: table('scopes'),
    leases: table('leases'),
    lockKey: `agentctl:${schema}.${prefix}`,
  };
}
