import { readFileSync, statSync } from 'node:fs';
import { type Diagnostic, diagnostic, FILE_START } from '../diagnostic.js';
import type { DocumentPositions } from './document-positions.js';
import { encodingProblem } from './encoding-problem.js';
import type { ParseCache } from './parse-cache.js';

/** Files above this size are refused unread: a config has no reason to be this large. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Aliases expanded per document; past it the document is an alias bomb. */
export const MAX_ALIAS_COUNT = 100;
/** Nesting deeper than this is refused before anything recurses over it. */
export const MAX_DEPTH = 64;

/** One YAML document of a file, with its data and what is needed to find positions in it. */
export interface ParsedDocument {
  /** Display path of the file (relative to the root when inside it). */
  file: string;
  absFile: string;
  /** Index of the document in its file, from 0. */
  index: number;
  /** Where each node of the document is, for diagnostics. */
  positions: DocumentPositions;
  /** The document as plain data; undefined when it could not be converted. */
  value: unknown;
}

/** A parsed file: its documents and the problems found while reading it. */
export interface ParsedFile {
  documents: ParsedDocument[];
  diagnostics: Diagnostic[];
}

/**
 * Reads and parses one YAML file into documents; never throws for what the file contains. With a
 * cache, text parsed before is not parsed again, and the `yaml` library is loaded only for new text.
 */
export async function parseFile(absFile: string, file: string, cache?: ParseCache): Promise<ParsedFile> {
  const diagnostics: Diagnostic[] = [];
  try {
    // Synchronous: a project's files are small (1 MiB at most), and a thread-pool round trip per
    // stat and read cost more at start-up than the reads themselves.
    const info = statSync(absFile);
    if (info.size > MAX_FILE_BYTES) {
      const size = `${(info.size / 1024 / 1024).toFixed(1)} MiB`;
      diagnostics.push(diagnostic(file, FILE_START, 'file-too-large', `file is ${size}; the limit is 1 MiB`));
      return { documents: [], diagnostics };
    }
    const bytes = readFileSync(absFile);
    const utf16 = bytes[0] === 0xff || bytes[0] === 0xfe ? encodingProblem(bytes, file) : undefined;
    if (utf16) return { documents: [], diagnostics: [utf16] };
    if (bytes.includes(0)) {
      diagnostics.push(
        diagnostic(
          file,
          FILE_START,
          'yaml-syntax',
          'file is binary (it contains NUL bytes), not YAML; a file saved as UTF-16 has them too: save it as UTF-8',
        ),
      );
      return { documents: [], diagnostics };
    }
    const encoding = encodingProblem(bytes, file);
    if (encoding) return { documents: [], diagnostics: [encoding] };
    const cached = cache?.get(bytes, absFile, file);
    if (cached) return cached;
    const { parseText } = await import('./parse-text.js');
    const parsed = parseText(bytes.toString('utf8'), absFile, file);
    cache?.set(bytes, parsed);
    return parsed;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    diagnostics.push(diagnostic(file, FILE_START, 'file-unreadable', `cannot read file (${reason})`));
    return { documents: [], diagnostics };
  }
}
