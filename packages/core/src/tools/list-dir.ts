import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { defineTool, type Tool } from '../tool.js';
import { approvalCheck, openConfinedFolder } from './confined-open.js';
import { type Roots, realRoots } from './confined-path.js';
import type { OpenedFolder } from './opened-folder.js';
import { isPrivatePath } from './private-path.js';
import { shownName } from './shown-name.js';

/** Options of {@link listDir}. */
export interface ListDirOptions {
  /** The folder (or folders; relative paths start in the first) the tool may list; nothing outside, symbolic links included. */
  root: Roots;
  /** Entries returned at most. Default 1000. */
  maxEntries?: number;
  /** Let it list inside private folders (`.agentctl`, `.git`, `.ssh`, ...) and show private entries' sizes, refused by default. */
  allowPrivate?: boolean;
}

/**
 * The built-in `list_dir` tool: lists a folder inside a declared folder, one entry a line
 * (`name/` for folders, `name (N bytes)` for files, `name@` for links, `name (private)` for a
 * private file or folder, which the file tools will not open).
 *
 * @example
 * const files = listDir({ root: './workspace' });
 */
export function listDir(options: ListDirOptions): Tool<{ path?: string }, string> {
  const maxEntries = options.maxEntries ?? 1000;
  return defineTool<{ path?: string }, string>({
    name: 'list_dir',
    pathArguments: { names: ['path'], root: options.root },
    description:
      'Lists the entries of a folder. Paths are relative to the allowed folder; "." is the folder itself.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Folder path relative to the allowed folder', default: '.' },
      },
      additionalProperties: false,
    },
    async execute({ path: requested = '.' }, context) {
      // Listed through the opened folder: one swapped for a link after the check lists nothing elsewhere.
      const folder = await openConfinedFolder(options.root, requested, {
        allowPrivate: options.allowPrivate,
        check: approvalCheck(context, 'path'),
      });
      const bases = await realRoots(options.root);
      try {
        return await listing(folder, bases, maxEntries, options.allowPrivate === true);
      } finally {
        await folder.close();
      }
    },
  });
}

async function listing(
  folder: OpenedFolder,
  bases: readonly string[],
  maxEntries: number,
  allowPrivate: boolean,
): Promise<string> {
  const real = folder.real;
  const entries = (await readdir(folder.at, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  // Listed by path where the folder is not pinned: it must still be the one opened.
  await folder.verify();
  const lines: string[] = [];
  for (const entry of entries.slice(0, maxEntries)) {
    const name = shownName(entry.name);
    // Named, so the model knows why it cannot open it; its size is not shown.
    if (!allowPrivate && isPrivatePath(bases, path.join(real, entry.name)))
      lines.push(`${name}${entry.isDirectory() ? '/' : ''} (private)`);
    else if (entry.isDirectory()) lines.push(`${name}/`);
    else if (entry.isSymbolicLink()) lines.push(`${name}@`);
    else if (entry.isFile()) {
      // A file removed since readdir (a lock file, a temp file) is left out, not an error.
      const size = (await lstat(path.join(folder.at, entry.name)).catch(() => undefined))?.size;
      if (size !== undefined) lines.push(`${name} (${size} bytes)`);
    } else lines.push(name);
  }
  if (entries.length > maxEntries) lines.push(`[${entries.length - maxEntries} more entries not shown]`);
  return lines.length > 0 ? lines.join('\n') : '[empty folder]';
}
