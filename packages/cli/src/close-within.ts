import { deadline } from '@agentctl/core';
import type { Io } from './io.js';

/** How long a stopping command waits for its project, queue and store to close. */
export const CLOSE_WAIT_MS = 2_000;

/**
 * Runs `close` (what a stopping command closes, in order), waiting for it at most `within` ms
 * (default {@link CLOSE_WAIT_MS}): a store or a queue that does not answer (a frozen database holds
 * the queries of the runs it cut off) must not keep the process past its grace. Their connections
 * end with the process; the operator is told. With nothing left to wait (a run that already used
 * its wind-down waiting on that store, and said so), `close` is started and not waited for. A
 * failure of `close` is thrown as it is.
 */
export async function closeWithin(io: Io, close: () => Promise<void>, within = CLOSE_WAIT_MS): Promise<void> {
  if (within <= 0) {
    // Still started: what it ends at once (MCP servers, command tools) is ended.
    close().catch(() => undefined);
    return;
  }
  let late = false;
  const limit = deadline(undefined, within, () => {
    late = true;
    return new Error('closing took too long');
  });
  try {
    await limit.race(close());
  } catch (error) {
    if (!late) throw error;
    io.stderr(
      `closing did not end within ${Math.round(within)} ms (the session store or the queue did not answer); exiting without it\n`,
    );
  } finally {
    limit.dispose();
  }
}
