export { PostgresConnectionError, redactUrl, urlProblem } from './connection-error.js';
export { PostgresStoreError } from './errors.js';
export { MIGRATIONS, type Migration, migrate, SCHEMA_VERSION } from './migrations.js';
export {
  POSTGRES_MEMORY_BACKEND,
  POSTGRES_OPTIONS_SCHEMA,
  type PostgresMemoryOptions,
  type PostgresMemorySpec,
  postgresMemoryBackend,
  postgresStoreFromSpec,
} from './postgres-memory-backend.js';
export {
  type PostgresRetention,
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js';
