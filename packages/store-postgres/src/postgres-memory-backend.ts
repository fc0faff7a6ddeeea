import { type MemoryDefinition, parseDuration, retentionPolicy } from '@agentctl/core';
import { urlProblem } from './connection-error.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { identifierProblem } from './tables.js';

/**
 * What the postgres backend reads of a memory definition (config passes the whole normalised one):
 * `url` is `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, usually `${DATABASE_URL}`.
 */
export type PostgresMemorySpec = Partial<Pick<MemoryDefinition, 'url' | 'retention'>> & {
  options?: PostgresMemoryOptions;
};

/** `options:` of a postgres memory, normalised (YAML writes them snake_case). */
export interface PostgresMemoryOptions {
  /** Most connections per process. Default 10. */
  poolSize?: number;
  /** PostgreSQL schema of the tables. Default `public`. */
  schema?: string;
  /** Prefix of the table names. Default `agentctl_`. */
  tablePrefix?: string;
  /** How long to wait for the server (a duration such as `5s`, or milliseconds). Default 10s. */
  connectTimeout?: number | string;
  /** How long a statement waits for the server's answer (a duration, or milliseconds). Default 30s. */
  queryTimeout?: number | string;
}

/** The name to register the backend under (`backend: postgres` in YAML). */
export const POSTGRES_MEMORY_BACKEND = 'postgres';

/**
 * The `postgres` memory backend for the config registry: a {@link PostgresSessionStore} on the
 * server at `url`, connected and migrated before it is returned, so an unreachable server or a
 * refused login fails the compile with a message naming `url` (and no run starts).
 *
 * @example
 * registry.registerMemory(POSTGRES_MEMORY_BACKEND, postgresMemoryBackend, { schema: POSTGRES_OPTIONS_SCHEMA });
 */
export async function postgresMemoryBackend(spec: PostgresMemorySpec): Promise<PostgresSessionStore> {
  const store = postgresStoreFromSpec(spec);
  try {
    await store.open();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** A store from a memory spec, checked but not yet connected. Throws an error naming the bad field. */
export function postgresStoreFromSpec(spec: PostgresMemorySpec): PostgresSessionStore {
  if (spec.url === undefined || spec.url === '') {
    throw new Error('url: backend postgres needs a connection URL (e.g. url: ${DATABASE_URL})');
  }
  const problem = urlProblem(spec.url);
  if (problem) throw new Error(problem);
  const options = spec.options ?? {};
  for (const [field, value] of [
    ['options.schema', options.schema],
    ['options.table_prefix', options.tablePrefix],
  ] as const) {
    const bad =
      value === undefined ? undefined : identifierProblem(value, field, field === 'options.table_prefix');
    if (bad) throw new Error(bad);
  }
  return new PostgresSessionStore({
    url: spec.url,
    schema: options.schema,
    tablePrefix: options.tablePrefix,
    poolSize: options.poolSize,
    connectTimeoutMs:
      options.connectTimeout === undefined
        ? undefined
        : parseDuration(options.connectTimeout, 'options.connect_timeout'),
    queryTimeoutMs:
      options.queryTimeout === undefined
        ? undefined
        : parseDuration(options.queryTimeout, 'options.query_timeout'),
    retention: retentionPolicy(spec.retention),
  });
}
