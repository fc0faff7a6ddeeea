import { randomBytes } from 'node:crypto';
import { createWriteStream, unlinkSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Writes `chunks` to `path` whole or not at all: into a temp file beside it, renamed over `path`
 * once the last chunk is written. A write that fails midway (a full disk, a file size limit), or
 * that Ctrl-C, SIGTERM or SIGHUP stops, leaves whatever was at `path` before, and no temp file.
 *
 * @example
 * await writeChunksToFile('export.json', exportText(data));
 */
export async function writeChunksToFile(
  path: string,
  chunks: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  // Named after this process, as the session store names its own: two writers never share one.
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  // The temp file goes, then the process ends of the signal as it would have without this.
  const onSignal = (signal: NodeJS.Signals) => {
    try {
      unlinkSync(temp);
    } catch {
      // not made yet, or gone
    }
    for (const name of SIGNALS) process.off(name, onSignal);
    process.kill(process.pid, signal);
  };
  for (const name of SIGNALS) process.on(name, onSignal);
  try {
    await pipeline(Readable.from(chunks), createWriteStream(temp, { flags: 'wx' }));
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  } finally {
    for (const name of SIGNALS) process.off(name, onSignal);
  }
}
