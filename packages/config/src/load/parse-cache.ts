import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../diagnostic.js';
import type { DocumentPositions } from './document-positions.js';
import type { ParsedFile } from './parse-file.js';

// Bump when what parseText makes from the same text changes (its diagnostics, positions or values):
// entries made by other code are then never read.
const FORMAT = 'agentctl-parse-1';

/** Where a project keeps parsed YAML, relative to its root. */
export const PARSE_CACHE_FILE = '.agentctl/cache/parsed.json';

interface Entry {
  documents: Array<{ index: number; value: unknown; positions: DocumentPositions }>;
  /** The parse's diagnostics without their file, which the same text may have under any name. */
  diagnostics: Array<Omit<Diagnostic, 'file'>>;
}

interface Stored {
  format: string;
  entries: Record<string, Entry>;
}

// JSON keeps every value YAML's core schema makes except non-finite numbers (`.inf`, `.nan`):
// a file holding one is parsed each time instead.
function jsonExact(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return true;
  return Object.values(value).every(jsonExact);
}

/**
 * Parsed YAML files of one project, by a digest of their bytes: a file read again unchanged is not
 * parsed again. What the rules check (references, paths, the environment) is checked each time;
 * only the parse, a function of the text alone, is kept. One JSON file under `.agentctl/cache`,
 * rewritten (atomically) when the project's files changed; a cache that cannot be read or written
 * is no worse than none.
 */
export class ParseCache {
  readonly #file: string;
  #stored: Record<string, Entry> | undefined;
  /** The entries of the files read this time, as JSON made before anyone could change their values. */
  readonly #used = new Map<string, string>();
  #changed = false;

  /** A cache for the project at `root`. */
  constructor(root: string) {
    this.#file = join(root, PARSE_CACHE_FILE);
  }

  #entries(): Record<string, Entry> {
    if (!this.#stored) {
      try {
        const stored = JSON.parse(readFileSync(this.#file, 'utf8')) as Stored;
        this.#stored = stored.format === FORMAT ? stored.entries : {};
      } catch {
        this.#stored = {};
      }
    }
    return this.#stored;
  }

  /** The parse of these bytes made before, given the file's names now; undefined when new. */
  get(bytes: Buffer, absFile: string, file: string): ParsedFile | undefined {
    const key = digest(bytes);
    const entry = this.#entries()[key];
    if (!entry) return undefined;
    this.#used.set(key, JSON.stringify(entry));
    return {
      documents: entry.documents.map((d) => ({ ...d, file, absFile })),
      diagnostics: entry.diagnostics.map((d) => ({ file, ...d })),
    };
  }

  /** Keeps the parse of these bytes. */
  set(bytes: Buffer, parsed: ParsedFile): void {
    const documents = parsed.documents.map(({ index, value, positions }) => ({ index, value, positions }));
    if (!documents.every((d) => jsonExact(d.value))) return;
    const diagnostics = parsed.diagnostics.map(({ file: _file, ...rest }) => rest);
    this.#used.set(digest(bytes), JSON.stringify({ documents, diagnostics }));
    this.#changed = true;
  }

  /** Writes the entries of the files read this time, when they differ from what was stored. */
  save(): void {
    const stored = this.#entries();
    if (!this.#changed && Object.keys(stored).length === this.#used.size) return;
    const entries = [...this.#used].map(([key, json]) => `${JSON.stringify(key)}:${json}`);
    try {
      mkdirSync(join(this.#file, '..'), { recursive: true });
      const temp = `${this.#file}.${process.pid}.tmp`;
      writeFileSync(temp, `{"format":${JSON.stringify(FORMAT)},"entries":{${entries.join(',')}}}`);
      renameSync(temp, this.#file);
    } catch {
      // A read-only project still loads; it parses each time.
    }
  }
}

function digest(bytes: Buffer): string {
  return createHash('sha256').update(FORMAT).update(bytes).digest('base64url');
}
