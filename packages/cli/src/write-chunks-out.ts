import { setImmediate } from 'node:timers/promises';
import type { Io } from './io.js';

/**
 * Writes `chunks` to the command's stdout, one at a time, each once the reader has taken the one
 * before (a long output waits for a slow reader instead of piling up in memory); false when the
 * reader went away first (`agentctl sessions export ID | head`), and nothing more was made.
 *
 * @example
 * if (!(await writeChunksOut(io, exportText(data)))) return EXIT.outputClosed;
 */
export async function writeChunksOut(
  io: Pick<Io, 'stdout' | 'outputClosed' | 'stdoutDrained'>,
  chunks: Iterable<string>,
): Promise<boolean> {
  for (const chunk of chunks) {
    if (io.outputClosed?.aborted) return false;
    io.stdout(chunk);
    await io.stdoutDrained?.();
    // A failed write is told by an event on a later tick.
    await setImmediate();
  }
  return !io.outputClosed?.aborted;
}
