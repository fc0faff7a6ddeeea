export {
  CorruptSessionError,
  InvalidExportError,
  InvalidSessionIdError,
  LockTimeoutError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreError,
} from './errors.js';
export type { LockOptions } from './file-lock.js';
export {
  durationMs,
  FILE_MEMORY_BACKEND,
  type FileMemoryContext,
  type FileMemorySpec,
  fileMemoryBackend,
} from './file-memory-backend.js';
export {
  type FileListFilter,
  FileSessionStore,
  type FileSessionStoreOptions,
  type FileSessionSummary,
} from './file-session-store.js';
export type { RetentionPolicy } from './retention.js';
export { assertSessionExport, type SessionExport } from './session-export.js';
export { assertSessionId } from './session-id.js';
export { FORMAT_VERSION, parseStoredSession, type StoredSession } from './stored-session.js';
