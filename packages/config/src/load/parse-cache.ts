import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../diagnostic.js';
import type { PluginProblem } from '../registry.js';
import type { OptionCheckMemo } from '../rules/check-options.js';
import type { CheckMemo } from './check-memo.js';
import type { DocumentPositions } from './document-positions.js';
import type { ParsedFile } from './parse-file.js';

// Bump when what parseText makes from the same text changes (its diagnostics, positions or values):
// entries made by other code are then never read.
const FORMAT = 'agentctl-parse-2';

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
  /** Plugin option checks by their key (see {@link OptionCheckMemo}). */
  options?: Record<string, PluginProblem[]>;
  /** Offline files' checks by their key (see {@link FileCheckMemo}). */
  files?: Record<string, string | null>;
}

/**
 * Checks of a file played offline (a script, a cassette) made before, by a key naming the check,
 * the file's shown path and a digest of its text: `null` when it passed, else its problem.
 */
export type FileCheckMemo = CheckMemo<string | null>;

// One section of kept checks: what was stored, and what this load used (only that is written back).
class Kept<T> implements CheckMemo<T> {
  readonly used = new Map<string, T>();
  readonly #stored: () => Record<string, T> | undefined;
  readonly #changed: () => void;
  readonly #valid: (value: unknown) => value is T;

  constructor(
    stored: () => Record<string, T> | undefined,
    changed: () => void,
    valid: (value: unknown) => value is T,
  ) {
    this.#stored = stored;
    this.#changed = changed;
    this.#valid = valid;
  }

  get(key: string): T | undefined {
    const stored = this.#stored();
    const found = stored && Object.hasOwn(stored, key) ? stored[key] : undefined;
    if (found === undefined || !this.#valid(found)) return undefined;
    this.used.set(key, found);
    return found;
  }

  set(key: string, found: T): void {
    this.used.set(key, found);
    this.#changed();
  }

  /** True when this load used exactly what was stored. */
  unchanged(): boolean {
    return Object.keys(this.#stored() ?? {}).length === this.used.size;
  }
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
 * only the parse, a function of the text alone, is kept, and two checks that are functions of text
 * alone too: what a plugin's options schema found in options (which takes a validator to make), and
 * what the check of an offline script or cassette found (which takes the YAML parser). One JSON
 * file under `.agentctl/cache`, rewritten (atomically) when the project's files changed; a cache
 * that cannot be read or written is no worse than none.
 */
export class ParseCache {
  readonly #file: string;
  #stored: Stored | undefined;
  /** The entries of the files read this time, as JSON made before anyone could change their values. */
  readonly #used = new Map<string, string>();
  #changed = false;
  readonly #options = new Kept<PluginProblem[]>(
    () => this.#read().options,
    () => this.#touch(),
    (value): value is PluginProblem[] => Array.isArray(value),
  );
  readonly #files = new Kept<string | null>(
    () => this.#read().files,
    () => this.#touch(),
    (value): value is string | null => value === null || typeof value === 'string',
  );

  /** Plugin option checks kept with the parses (and, as they, only those used this time). */
  readonly optionChecks: OptionCheckMemo = this.#options;

  /** Checks of files models play offline, kept likewise. */
  readonly fileChecks: FileCheckMemo = this.#files;

  /** A cache for the project at `root`. */
  constructor(root: string) {
    this.#file = join(root, PARSE_CACHE_FILE);
  }

  #read(): Stored {
    if (!this.#stored) {
      try {
        const stored = JSON.parse(readFileSync(this.#file, 'utf8')) as Stored;
        this.#stored = stored.format === FORMAT ? stored : { format: FORMAT, entries: {} };
      } catch {
        this.#stored = { format: FORMAT, entries: {} };
      }
    }
    return this.#stored;
  }

  #entries(): Record<string, Entry> {
    return this.#read().entries;
  }

  #touch(): void {
    this.#changed = true;
  }

  /** The parse of these bytes made before, given the file's names now; undefined when new. */
  get(bytes: Buffer, absFile: string, file: string): ParsedFile | undefined {
    const key = parseCacheKey(bytes);
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
    this.#used.set(parseCacheKey(bytes), JSON.stringify({ documents, diagnostics }));
    this.#changed = true;
  }

  /** Writes the entries of the files read this time, when they differ from what was stored. */
  save(): void {
    const stored = this.#read();
    if (
      !this.#changed &&
      Object.keys(stored.entries).length === this.#used.size &&
      this.#options.unchanged() &&
      this.#files.unchanged()
    )
      return;
    const entries = [...this.#used].map(([key, json]) => `${JSON.stringify(key)}:${json}`);
    const options = JSON.stringify(Object.fromEntries(this.#options.used));
    const files = JSON.stringify(Object.fromEntries(this.#files.used));
    try {
      mkdirSync(join(this.#file, '..'), { recursive: true });
      const temp = `${this.#file}.${process.pid}.tmp`;
      writeFileSync(
        temp,
        `{"format":${JSON.stringify(FORMAT)},"entries":{${entries.join(',')}},"options":${options},"files":${files}}`,
      );
      renameSync(temp, this.#file);
    } catch {
      // A read-only project still loads; it parses each time.
    }
  }
}

/** The key of a file's parse in the cache: a digest of its bytes (and of the cache's format). */
export function parseCacheKey(bytes: Buffer): string {
  return createHash('sha256').update(FORMAT).update(bytes).digest('base64url');
}
