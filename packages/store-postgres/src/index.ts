export {
  describeServer,
  PostgresConnectionError,
  PostgresPermissionError,
  urlProblem,
} from './connection-error.js';
export { PostgresStoreError } from './errors.js';
export { MIGRATIONS, type Migration, migrate, SCHEMA_VERSION } from './migrations.js';
export {
  POSTGRES_MEMORY_BACKEND,
  type PostgresMemoryOptions,
  type PostgresMemorySpec,
  postgresMemoryBackend,
  postgresStoreFromSpec,
} from './postgres-memory-backend.js';
export { POSTGRES_OPTIONS_SCHEMA } from './postgres-options-schema.js';
export {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js';
