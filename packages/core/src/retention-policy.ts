import { parseDuration } from './duration.js';

/** How many top-level sessions a store keeps, and for how long; applied when a top-level session is created. */
export interface RetentionPolicy {
  /** Keep at most this many top-level sessions (their child sessions go with them). */
  maxSessions?: number;
  /** Remove top-level sessions not updated for this many milliseconds. */
  maxAgeMs?: number;
}

/** `retention:` of a `kind: memory` document as written (snake_case) or given from code (camelCase). */
export type RetentionSpec = RetentionPolicy & {
  max_sessions?: number;
  /** Milliseconds, or a duration such as `30d`, `12h`, `15m`, `90s`. */
  max_age?: number | string;
};

/** The policy a memory's `retention:` asks for; throws an error naming the bad field. Every store reads it the same way. */
export function retentionPolicy(raw: RetentionSpec | undefined): RetentionPolicy | undefined {
  if (!raw) return undefined;
  const maxSessions = raw.maxSessions ?? raw.max_sessions;
  const age = raw.maxAgeMs ?? raw.max_age;
  const policy: RetentionPolicy = {};
  if (maxSessions !== undefined) {
    if (!Number.isInteger(maxSessions) || maxSessions < 1) {
      throw new Error(`retention.max_sessions must be a whole number of at least 1, not ${maxSessions}`);
    }
    policy.maxSessions = maxSessions;
  }
  if (age !== undefined) policy.maxAgeMs = parseDuration(age, 'retention.max_age');
  return policy;
}
