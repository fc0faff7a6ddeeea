import { CliError, EXIT } from '../../cli-error.js';

/**
 * The most a prompt or an answer read from a stream may hold: several times any model's context
 * window, and short of what a session's records can hold (a prompt is stored twice, escaped, in
 * one record; past Node's longest string the store would fail halfway through the run).
 */
export const MAX_READ_TEXT_BYTES = 32 * 1024 * 1024;

/** Reads all of standard input as text (the prompt of `echo hi | agentctl run a`), refusing more than `limit` bytes. */
export function readStdin(
  stream: NodeJS.ReadableStream = process.stdin,
  limit = MAX_READ_TEXT_BYTES,
): Promise<string> {
  return readText(stream, 'the prompt on stdin', limit);
}

/** Reads a stream as UTF-8 text; more than `limit` bytes is a usage error naming `what` was read. */
export async function readText(
  stream: NodeJS.ReadableStream,
  what: string,
  limit = MAX_READ_TEXT_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    // Said before the rest is read: a gigabyte piped in (or /dev/zero) is never held in memory.
    if (size > limit)
      throw new CliError(
        `${what} is larger than ${limit / 1024 / 1024} MiB, the most \`run\` takes (no model reads that much at once): pass a shorter text, or give the agent a tool that reads the file`,
        EXIT.usage,
      );
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
