/**
 * The memory definition a memory backend is made from: a `kind: memory` document (or a backend
 * named directly), camelCase, durations in ms, its path already resolved inside the project.
 */

/** How long sessions are kept, normalised. */
export interface RetentionDefinition {
  /** Keep at most this many sessions (the oldest go first). */
  maxSessions?: number;
  /** Drop sessions not touched for this long, ms. */
  maxAgeMs?: number;
}

/** A `kind: memory` document, normalised. */
export interface MemoryDefinition {
  name: string;
  description?: string;
  /** The registered backend that stores it (default `file`). */
  backend: string;
  /** Absolute path inside the project, resolved and confined by the loader; unset for the backend's default. */
  path?: string;
  /** A server backend's connection URL (postgres), `${VAR}` resolved. */
  url?: string;
  retention?: RetentionDefinition;
  /** The backend's own options (typed by its registry descriptor), keys camelCased. */
  options: Record<string, unknown>;
}
