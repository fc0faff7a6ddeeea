import { defineTool, type Tool } from '../tool.js';
import { approvalCheck, openConfinedFile } from './confined-open.js';
import type { Roots } from './confined-path.js';

/** Options of {@link readFile}. */
export interface ReadFileOptions {
  /** The folder (or folders; relative paths start in the first) the tool may read; nothing outside, symbolic links included. */
  root: Roots;
  /** Bytes returned at most; a longer file is cut with a note. Default 262144 (256 KiB). */
  maxBytes?: number;
  /** Let it read private files (`.env*`, `.agentctl/`, `.git/`, keys, ...: `PRIVATE_NAMES`), refused by default. */
  allowPrivate?: boolean;
}

/**
 * The built-in `read_file` tool: reads a UTF-8 text file inside a declared folder.
 *
 * @example
 * const docs = readFile({ root: './docs', maxBytes: 65536 });
 */
export function readFile(options: ReadFileOptions): Tool<{ path: string }, string> {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  return defineTool<{ path: string }, string>({
    name: 'read_file',
    pathArguments: { names: ['path'], root: options.root },
    description: `Reads a text file. Paths are relative to the allowed folder; at most ${maxBytes} bytes are returned.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'File path relative to the allowed folder' } },
      required: ['path'],
      additionalProperties: false,
    },
    async execute({ path: requested }, context) {
      const { handle, stats } = await openConfinedFile(options.root, requested, {
        allowPrivate: options.allowPrivate,
        check: approvalCheck(context, 'path'),
      });
      try {
        const length = Math.min(stats.size, maxBytes);
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        const bytes = buffer.subarray(0, bytesRead);
        if (bytes.includes(0)) return `[binary file of ${stats.size} bytes not shown]`;
        const text = bytes.toString('utf8');
        return stats.size > maxBytes
          ? `${text}\n[truncated: the file has ${stats.size} bytes; the first ${maxBytes} are shown]`
          : text;
      } finally {
        await handle.close();
      }
    },
  });
}
