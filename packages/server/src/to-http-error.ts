import { ChangedCallError, isAgentError, UsageError } from '@agentctl/core';
import { HttpError } from './http-error.js';

/**
 * Maps what a store or the runner threw before a run started to an HTTP error: a caller's
 * mistake is a 4xx with the runner's own words, anything else a 500 without its details.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  // The session moved on since the caller looked: a conflict, not a malformed request.
  if (error instanceof ChangedCallError) return new HttpError(409, 'call_changed', error.message);
  if (error instanceof UsageError) return new HttpError(400, 'bad_request', error.message);
  const name = error instanceof Error ? error.name : '';
  if (name === 'InvalidSessionIdError')
    return new HttpError(400, 'invalid_session_id', (error as Error).message);
  // A session lease held by another process (or another server) means the session is running.
  if (/lease|busy/i.test(name)) return new HttpError(409, 'session_busy', (error as Error).message);
  // A store that cannot be reached (a database down or restarting) is an outage to wait out, not a
  // fault of this request: 503 so a client or a load balancer retries. Where the store is stays
  // with the operator (the message names its host, database and user).
  if (isStoreUnreachable(error))
    return new HttpError(503, 'store_unavailable', 'the session store cannot be reached; try again shortly', {
      'retry-after': '5',
    });
  if (isAgentError(error)) return new HttpError(500, error.code, error.message);
  return new HttpError(500, 'internal', 'internal error');
}

/** True for a store's "cannot reach the server" error (`PostgresConnectionError` and its like). */
export function isStoreUnreachable(error: unknown): boolean {
  return error instanceof Error && /ConnectionError$/.test(error.name);
}
