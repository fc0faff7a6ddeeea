/** Base class of the file store's errors: the message names the file, so a user can act on it. */
export class SessionStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A session file that cannot be parsed or has an unknown layout (for example truncated by hand). */
export class CorruptSessionError extends SessionStoreError {
  /** Absolute path of the bad file. */
  readonly path: string;
  /** What is wrong with it. */
  readonly reason: string;
  /** The line (from 1) of a session log that is wrong, when one is. */
  readonly line?: number;

  constructor(path: string, reason: string, options?: { cause?: unknown; line?: number }) {
    super(`session file ${path} is corrupt: ${reason}`, options);
    this.path = path;
    this.reason = reason;
    if (options?.line !== undefined) this.line = options.line;
  }
}

/** An operation on a session that does not exist. */
export class SessionNotFoundError extends SessionStoreError {
  /** The missing session's id. */
  readonly id: string;

  constructor(id: string, dir: string) {
    super(`no session with id ${id} in ${dir}`);
    this.id = id;
  }
}

/** `create` or `import` with an id that is already taken. */
export class SessionExistsError extends SessionStoreError {
  /** The taken id. */
  readonly id: string;

  constructor(id: string, dir: string) {
    super(`session ${id} already exists in ${dir}`);
    this.id = id;
  }
}

/**
 * A session id whose file holds another session: ids that differ only in case (`bob`, `Bob`) name
 * one file on a disk that ignores case (macOS and Windows by default).
 */
export class SessionIdClashError extends SessionStoreError {
  /** The id asked for. */
  readonly id: string;
  /** The id of the session its file holds. */
  readonly storedId: string;

  constructor(id: string, storedId: string, dir: string) {
    super(
      `session id ${id} names the file of session ${storedId} in ${dir}, whose file system ignores case: use ids that differ by more than case`,
    );
    this.id = id;
    this.storedId = storedId;
  }
}

/** A lock file held by another live process for longer than the wait allows. */
export class LockTimeoutError extends SessionStoreError {
  /** The lock file. */
  readonly path: string;

  constructor(path: string, waitedMs: number, owner: string) {
    super(`timed out after ${waitedMs} ms waiting for lock ${path} (held by ${owner})`);
    this.path = path;
  }
}

/** Data given to `importSession` that is not a session export (core's, shared by every store). */
export { InvalidExportError } from '@agentctl/core';
