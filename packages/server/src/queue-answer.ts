import { deadline, UsageError } from '@agentctl/core';
import type { ErrorShield } from './error-shield.js';
import { HttpError } from './http-error.js';

/** How long a request (and `GET /health`) waits for the queue's Redis before it is answered 503. */
export const QUEUE_ANSWER_MS = 5_000;

/**
 * Waits for a call to the queue for at most {@link QUEUE_ANSWER_MS}. While Redis is away its client
 * holds commands until it reconnects, so past that wait, or when the call fails, the request is
 * answered `503 queue_unavailable` with `Retry-After`; what Redis said (its host, a refused
 * password) goes to the operator's log under the ref the answer carries. A caller's own mistake
 * (a malformed session id) keeps its 400.
 */
export async function queueAnswer<T>(shield: ErrorShield, work: Promise<T>): Promise<T> {
  let late: Error | undefined;
  const limit = deadline(undefined, QUEUE_ANSWER_MS, () => {
    late = new Error(`the queue did not answer within ${QUEUE_ANSWER_MS} ms`);
    return late;
  });
  try {
    return await limit.race(work);
  } catch (error) {
    if (error instanceof HttpError || error instanceof UsageError) throw error;
    if (error instanceof Error && error.name === 'InvalidSessionIdError') throw error;
    const reason =
      error === late || shield.expose
        ? (error as Error).message
        : `the queue failed (ref ${shield.internal(error, 'queue unavailable')})`;
    throw new HttpError(503, 'queue_unavailable', reason, { 'retry-after': '5' });
  } finally {
    limit.dispose();
  }
}
