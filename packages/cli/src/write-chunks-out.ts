import { setImmediate } from 'node:timers/promises';

/**
 * Writes `chunks` to the command's stdout, one at a time; false when the reader went away first
 * (`agentctl sessions export ID | head`), and nothing more was made. Each chunk gives the event
 * loop a turn: a write to a pipe is synchronous, and its reader's going away is told by an event.
 *
 * @example
 * if (!(await writeChunksOut(io, exportText(data)))) return EXIT.outputClosed;
 */
export async function writeChunksOut(
  io: { stdout(text: string): void; outputClosed?: AbortSignal },
  chunks: Iterable<string>,
): Promise<boolean> {
  for (const chunk of chunks) {
    if (io.outputClosed?.aborted) return false;
    io.stdout(chunk);
    await setImmediate();
  }
  return !io.outputClosed?.aborted;
}
