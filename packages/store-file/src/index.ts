// The id rule is core's, the same in every store; re-exported for this package's users.
export { assertSessionId, InvalidSessionIdError } from '@agentctl/core';
export {
  CorruptSessionError,
  InvalidExportError,
  LockTimeoutError,
  SessionExistsError,
  SessionIdClashError,
  SessionNotFoundError,
  SessionStoreError,
} from './errors.js';
export type { LockOptions } from './file-lock.js';
export {
  FILE_MEMORY_BACKEND,
  type FileMemoryContext,
  type FileMemoryDefinition,
  fileMemoryBackend,
} from './file-memory-backend.js';
export {
  type FileListFilter,
  type FilePageQuery,
  type FileSessionPage,
  FileSessionStore,
  type FileSessionStoreOptions,
  type FileSessionSummary,
} from './file-session-store.js';
export type { RetentionPolicy } from './retention.js';
export { assertSessionExport, type SessionExport } from './session-export.js';
export { FORMAT_VERSION, parseStoredSession, type StoredSession } from './stored-session.js';
