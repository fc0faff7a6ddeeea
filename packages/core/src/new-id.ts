import { randomUUID } from 'node:crypto';

/**
 * A random UUID held as one flat string. Node builds `randomUUID()` out of some twenty
 * concatenated pieces, and V8 keeps that tree (about 490 bytes) for as long as the id lives; a
 * run keeps three ids (session, invocation, lease token) for its whole life. `toLowerCase` (a
 * no-op on a UUID's characters) copies it into one flat string of about 70 bytes.
 */
export function newId(): string {
  return randomUUID().toLowerCase();
}
