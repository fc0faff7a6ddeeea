import { createHash, randomBytes } from 'node:crypto';
import { AgentError, type AgentEvent, type ErrorBlame, isAgentError } from '@agentctl/core';

// The codes whose text is the client's or the agent's business: a limit, a cancel, what the model
// or a tool did (the model saw it), a provider's failure as the provider layer words it for users,
// a queued request refused (USAGE). Anything else (INTERNAL_ERROR, CONFIG_ERROR, a code this list
// does not know) is the operator's: a store's message names its host, database and user; a path,
// the server's folders.
const CLIENT_CODES: ReadonlySet<string> = new Set([
  'MAX_ITERATIONS_EXCEEDED',
  'MAX_TOKENS_EXCEEDED',
  'TIMEOUT',
  'ABORTED',
  'MODEL_ERROR',
  'TOOL_VALIDATION_ERROR',
  'TOOL_EXECUTION_ERROR',
  'OUTPUT_PARSE_ERROR',
  'PROVIDER_ERROR',
  'USAGE',
]);

// Refs already logged: a client reading one session or run again must not fill the log with it.
const LOGGED_LIMIT = 10_000;

/** Options of an {@link ErrorShield}. */
export interface ErrorShieldOptions {
  /** Send every error's own text to clients (`serve --expose-errors`, for local debugging). */
  expose?: boolean;
  /** Where the full text goes, one line each with its ref (the server's stderr). */
  log?: (line: string) => void;
}

/** Where a hidden error came from, for its log line. */
export interface ErrorOrigin {
  /** Makes the ref stable: the same error event read again (a session, a queued run) keeps its ref. */
  key?: string;
  sessionId?: string;
}

/**
 * What a remote client reads of a failure inside the server. An error that is not the client's or
 * the agent's business reaches it as `internal error (ref R)` with its code; the full text goes to
 * the log with the same ref. The session keeps the full text: it is the operator's.
 *
 * @example
 * const shield = new ErrorShield({ log: (line) => process.stderr.write(line) });
 * shield.message('INTERNAL_ERROR', 'connect to db.internal failed', { key: event.id }); // "internal error (ref 3f2a9c0d1b7e)"
 */
export class ErrorShield {
  /** True when every error's own text reaches clients. */
  readonly expose: boolean;
  readonly #log: (line: string) => void;
  readonly #logged = new Set<string>();

  constructor(options: ErrorShieldOptions = {}) {
    this.expose = options.expose ?? false;
    this.#log = options.log ?? (() => undefined);
  }

  /** True when an error of `code` (blamed on `blame`) is kept from clients. */
  hides(code: string, blame?: ErrorBlame | unknown): boolean {
    if (this.expose) return false;
    return !CLIENT_CODES.has(code) || blame === 'internal' || blame === 'config';
  }

  /** The text a client reads for an error of `code`: its own, or the generic one after logging it. */
  message(code: string, message: string, origin: ErrorOrigin = {}, blame?: unknown): string {
    if (!this.hides(code, blame)) return message;
    return `internal error (ref ${this.#record(code, message, origin)})`;
  }

  /** An event as a client reads it: an `error` event's text shielded (its ref in `context.ref`). */
  event(event: AgentEvent, sessionId?: string): AgentEvent {
    if (event.type !== 'error') return event;
    const blame = event.context?.blame;
    if (!this.hides(event.code, blame)) return event;
    const ref = this.#record(event.code, event.message, { key: event.id, sessionId });
    return {
      ...event,
      message: `internal error (ref ${ref})`,
      context: { blame, retryable: event.context?.retryable, ref },
    };
  }

  /** A run's failure as a client reads it: the same code, blame and partial result, the text shielded. */
  error(error: unknown, origin: ErrorOrigin = {}): unknown {
    if (!isAgentError(error) || !this.hides(error.code, error.blame)) return error;
    const ref = this.#record(error.code, error.message, origin);
    const shielded = new AgentError(`internal error (ref ${ref})`, error.code, {
      blame: error.blame,
      retryable: error.retryable,
      context: { ref },
    });
    shielded.result = error.result;
    return shielded;
  }

  /**
   * Logs a failure of the server itself (not a run's) with a new ref, and gives the ref: the
   * caller answers `internal error (ref R)` or its own words with the ref.
   */
  internal(error: unknown, what = 'internal error'): string {
    const text = error instanceof Error ? error.message : String(error);
    return this.#record(what, text, {});
  }

  #record(code: string, message: string, origin: ErrorOrigin): string {
    const ref =
      origin.key === undefined
        ? randomBytes(6).toString('hex')
        : createHash('sha256').update(origin.key).digest('hex').slice(0, 12);
    if (!this.#logged.has(ref)) {
      if (this.#logged.size >= LOGGED_LIMIT) this.#logged.clear();
      this.#logged.add(ref);
      const session = origin.sessionId === undefined ? '' : ` in session ${origin.sessionId}`;
      this.#log(`agentctl serve: ${code} (ref ${ref})${session}: ${message}\n`);
    }
    return ref;
  }
}
