import { deadline } from '@agentctl/core';
import type { Io } from './io.js';

/** How long a stopping command waits for its project, queue and store to close. */
export const CLOSE_WAIT_MS = 2_000;

/**
 * Runs `close` (what a stopping command closes, in order), waiting for it at most
 * {@link CLOSE_WAIT_MS}: a store or a queue that does not answer (a frozen database holds the
 * queries of the runs it cut off) must not keep the process past its grace. Their connections end
 * with the process; the operator is told. A failure of `close` is thrown as it is.
 */
export async function closeWithin(io: Io, close: () => Promise<void>): Promise<void> {
  let late = false;
  const limit = deadline(undefined, CLOSE_WAIT_MS, () => {
    late = true;
    return new Error('closing took too long');
  });
  try {
    await limit.race(close());
  } catch (error) {
    if (!late) throw error;
    io.stderr(
      `closing did not end within ${CLOSE_WAIT_MS} ms (the session store or the queue did not answer); exiting without it\n`,
    );
  } finally {
    limit.dispose();
  }
}
