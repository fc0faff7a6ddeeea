import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  type AnyTool,
  approvalCheck,
  type ConfinedOpenOptions,
  confinedPath,
  defineTool,
  isPrivatePath,
  listDir,
  openConfinedFile,
  openConfinedFolder,
  openRegularFileIn,
  openTargetFolder,
  type PrivacyOptions,
  type Roots,
  readFile,
  realRoot,
  refusalError,
  replaceFileIn,
  shownName,
  type ToolContext,
} from '@agentctl/core';
import { boundedRegex } from './bounded-regex.js';
import { filesMatching } from './files-matching.js';

/** Options of the `filesystem` built-in (camelCase, paths absolute). */
export interface FilesystemOptions {
  /** Folders the tools may touch; relative paths start in the first. Default: the project. */
  root: Roots;
  /** Only the reading tools (read_file, list_dir, find_files, grep). Default false. */
  readOnly?: boolean;
  /** Whether write_file and edit_file ask a person first. Default true. */
  approveWrites?: boolean;
  /** Bytes read from a file at most. Default 262144. */
  maxBytes?: number;
  /** Paths returned by find_files, and matches by grep, at most. Default 200. */
  maxResults?: number;
  /** Let the tools read and write private files (`.env*`, `.agentctl/`, `.git/`, keys, ...). Default false. */
  allowPrivate?: boolean;
}

/**
 * The `filesystem` built-in: read_file, write_file, edit_file (exact-match replace), list_dir,
 * find_files (glob) and grep, confined by real path to the declared folders. Writes and edits
 * ask a person first unless `approveWrites` is false.
 *
 * @example
 * filesystem({ root: ['/work/project', '/work/shared'], approveWrites: true });
 */
export function filesystem(options: FilesystemOptions): AnyTool[] {
  const roots = options.root;
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const maxResults = options.maxResults ?? 200;
  const approve = options.approveWrites ?? true;
  const privacy: PrivacyOptions = { allowPrivate: options.allowPrivate ?? false };
  const reading: AnyTool[] = [
    readFile({ root: roots, maxBytes, ...privacy }),
    listDir({ root: roots, maxEntries: maxResults * 5, ...privacy }),
    findFiles(roots, maxResults, privacy),
    grep(roots, maxResults, maxBytes, privacy),
  ];
  if (options.readOnly) return reading;
  return [...reading, writeFileTool(roots, approve, privacy), editFile(roots, approve, maxBytes, privacy)];
}

function findFiles(roots: Roots, maxResults: number, privacy: PrivacyOptions): AnyTool {
  return defineTool<{ pattern: string; path?: string }, string>({
    name: 'find_files',
    pathArguments: { names: ['path'], root: roots },
    description:
      'Lists files whose path matches a glob such as "src/**/*.ts", relative to the folder given (default ".").',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'A glob: * within a name, ** across folders' },
        path: {
          type: 'string',
          description: 'The folder to search, relative to the allowed folder. Default "."',
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    async execute({ pattern, path: folder = '.' }, context) {
      const start = await confinedPath(roots, '.', privacy);
      // Each file as if the call named it: one a deny rule refuses is left out.
      const judged = { ...privacy, check: approvalCheck(context, 'path') };
      const files = (await matching(roots, folder, pattern, judged)).filter(
        (file) => context.pathRefusal?.('path', path.join(start, file), true) === undefined,
      );
      if (files.length === 0) return '[no file matches]';
      const shown = files.slice(0, maxResults).map(shownName);
      return files.length > maxResults
        ? `${shown.join('\n')}\n[${files.length - maxResults} more not shown]`
        : shown.join('\n');
    },
  });
}

// Files under `folder` matching `pattern`, relative to the first root; links are not followed,
// so a search never walks out of the allowed folders, and private files (`.env*`, `.git/`, keys, ...)
// are left out unless allowed (a pattern may name them: `.env*` finds dot files). The folder is
// opened and judged as list_dir's is (`check`).
async function matching(
  roots: Roots,
  folder: string,
  pattern: string,
  options: ConfinedOpenOptions,
): Promise<string[]> {
  if (path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..'))
    throw new Error(`the pattern "${pattern}" must stay inside the folder (no absolute paths, no "..")`);
  const opened = await openConfinedFolder(roots, folder, options);
  let found: string[];
  try {
    found = (await filesMatching(opened, pattern)).map((file) => path.join(opened.real, file));
  } finally {
    await opened.close();
  }
  const start = await confinedPath(roots, '.', options);
  const bases = await Promise.all((typeof roots === 'string' ? [roots] : roots).map(realRoot));
  return found
    .filter((file) => options.allowPrivate || !isPrivatePath(bases, file))
    .map((file) => path.relative(start, file))
    .sort();
}

function grep(roots: Roots, maxResults: number, maxBytes: number, privacy: PrivacyOptions): AnyTool {
  return defineTool<{ pattern: string; glob?: string; path?: string; regex?: boolean }, string>({
    name: 'grep',
    pathArguments: { names: ['path'], root: roots },
    description:
      'Searches file contents for a text (or a regular expression when regex is true); prints path:line: text.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'The text to find' },
        regex: {
          type: 'boolean',
          description: 'Treat the pattern as a JavaScript regular expression. Default false',
        },
        glob: { type: 'string', description: 'Only files matching this glob. Default "**/*"' },
        path: { type: 'string', description: 'The folder to search. Default "."' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    async execute({ pattern, regex, glob: only = '**/*', path: folder = '.' }, context) {
      const hits = regex
        ? boundedRegex(pattern)
        : (rows: readonly string[]) => rows.map((row) => row.includes(pattern));
      const start = await confinedPath(roots, '.', privacy);
      const lines: string[] = [];
      // Each file as if the call named it: a link to a private file, or to one a deny rule refuses, is skipped.
      const options = { ...privacy, check: approvalCheck(context, 'path', true) };
      const judged = { ...privacy, check: approvalCheck(context, 'path') };
      for (const file of await matching(roots, folder, only, judged)) {
        const opened = await openConfinedFile(roots, file, options).catch(() => undefined);
        const text = opened && (await smallText(opened.handle, opened.stats.size, maxBytes));
        if (!opened || text === undefined || text.includes('\0')) continue;
        const real = opened.real;
        const rows = text.split('\n');
        const hit = hits(rows);
        for (let i = 0; i < rows.length && lines.length <= maxResults; i++) {
          if (hit[i])
            lines.push(`${shownName(path.relative(start, real))}:${i + 1}: ${rows[i].slice(0, 300)}`);
        }
        if (lines.length > maxResults) break;
      }
      if (lines.length === 0) return '[no match]';
      return lines.length > maxResults
        ? `${lines.slice(0, maxResults).join('\n')}\n[more matches not shown]`
        : lines.join('\n');
    },
  });
}

// The text of an opened file of at most `maxBytes` (undefined when larger), closing it.
async function smallText(handle: FileHandle, size: number, maxBytes: number): Promise<string | undefined> {
  try {
    return size > maxBytes ? undefined : await boundedText(handle, maxBytes);
  } finally {
    await handle.close();
  }
}

function writeFileTool(roots: Roots, approve: boolean, privacy: PrivacyOptions): AnyTool {
  return defineTool<{ path: string; content: string }, string>({
    name: 'write_file',
    pathArguments: { names: ['path'], root: roots },
    description: 'Writes a text file (created, or replaced), making missing folders.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the allowed folder' },
        content: { type: 'string', description: 'The whole new content' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    needsApproval: approve,
    async execute({ path: requested, content }, context) {
      // Each missing folder made in the one opened before it, and the file written in the last,
      // each checked once open: a folder swapped for a link meanwhile cannot redirect the write.
      const { folder, name } = await openTargetFolder(roots, requested, writing(privacy, context, true));
      try {
        await replaceFileIn(folder, name, content).catch((error: unknown) => {
          throw refusalError(error, requested, 'written');
        });
      } finally {
        await folder.close();
      }
      return `wrote ${Buffer.byteLength(content)} bytes to ${requested}`;
    },
  });
}

function editFile(roots: Roots, approve: boolean, maxBytes: number, privacy: PrivacyOptions): AnyTool {
  return defineTool<{ path: string; old_text: string; new_text: string; replace_all?: boolean }, string>({
    name: 'edit_file',
    pathArguments: { names: ['path'], root: roots },
    description:
      'Replaces an exact text in a file. old_text must occur exactly once (or set replace_all); copy it exactly, whitespace included.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the allowed folder' },
        old_text: { type: 'string', minLength: 1, description: 'The exact text to replace' },
        new_text: { type: 'string', description: 'The text to put instead' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence. Default false' },
      },
      required: ['path', 'old_text', 'new_text'],
      additionalProperties: false,
    },
    needsApproval: approve,
    async execute({ path: requested, old_text: before, new_text: after, replace_all: all }, context) {
      // As for write_file: never through a link, which could lead past an approval rule's path;
      // read and written in the one folder opened and checked.
      const { folder, name } = await openTargetFolder(roots, requested, writing(privacy, context, false));
      try {
        const { handle, stats } = await openRegularFileIn(folder, name, requested);
        let text: string;
        try {
          if (stats.size > maxBytes) throw new Error(`"${requested}" is over ${maxBytes} bytes; not edited`);
          const read = await boundedText(handle, maxBytes);
          if (read === undefined)
            throw new Error(`"${requested}" grew over ${maxBytes} bytes while it was read; not edited`);
          text = read;
        } finally {
          await handle.close();
        }
        const count = text.split(before).length - 1;
        if (count === 0) throw new Error(`old_text was not found in ${requested}; nothing changed`);
        if (count > 1 && !all)
          throw new Error(
            `old_text occurs ${count} times in ${requested}; add context to make it unique, or set replace_all`,
          );
        await replaceFileIn(folder, name, text.split(before).join(after)).catch((error: unknown) => {
          throw refusalError(error, requested, 'written');
        });
        return `replaced ${count} occurrence${count === 1 ? '' : 's'} in ${requested}`;
      } finally {
        await folder.close();
      }
    },
  });
}

function writing(privacy: PrivacyOptions, context: ToolContext, make: boolean) {
  return { ...privacy, make, check: approvalCheck(context, 'path') };
}

// An opened file's text when it holds at most `maxBytes`, else undefined: the bytes are counted
// as read, so a file growing meanwhile (a log being written) cannot make the read go on, or
// memory grow, past the cap, and an edit never writes back a cut copy.
async function boundedText(handle: FileHandle, maxBytes: number): Promise<string | undefined> {
  const buffer = Buffer.allocUnsafe(maxBytes + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled > maxBytes ? undefined : buffer.toString('utf8', 0, filled);
}
