import type { SourceRange } from '../diagnostic.js';
import type { Kind } from '../schemas.js';
import type { SpecByKind } from '../spec-types.js';
import type { DataPath } from './node-range.js';

/** One named document (or inline agent) of the project, with where it was written. */
export interface SpecEntry<T = unknown> {
  kind: Kind;
  name: string;
  /** The parsed object, keys as written (snake_case). */
  spec: T;
  /** Display path of its file. */
  file: string;
  absFile: string;
  /** The range of its `name` value. */
  range: SourceRange;
  /** Where a path inside this spec sits in the file (`key: true` for the key rather than the value). */
  locate(path: DataPath, options?: { key?: boolean }): SourceRange;
  /** For an inline sub-agent: the agent it is written in. */
  parent?: string;
}

/** The project index: per kind, name -> entry. */
export type ProjectSpecs = { [K in Exclude<Kind, 'project'>]: Map<string, SpecEntry<SpecByKind[K]>> } & {
  project?: SpecEntry<SpecByKind['project']>;
};

/**
 * The index of entries in file order: the first definition of a name is its entry (later ones are
 * unique-names'). Only a project document that passed its schema steers anything (globs, .env,
 * defaults): rules and the watch read its fields as typed.
 */
export function indexEntries(entries: ReadonlyArray<SpecEntry & { valid: boolean }>): ProjectSpecs {
  const specs = emptySpecs();
  for (const entry of entries) {
    if (entry.kind === 'project') {
      if (entry.valid) specs.project ??= entry as ProjectSpecs['project'];
      continue;
    }
    const map = specs[entry.kind] as Map<string, SpecEntry>;
    if (!map.has(entry.name)) map.set(entry.name, entry);
  }
  return specs;
}

/** An empty index. */
export function emptySpecs(): ProjectSpecs {
  return {
    agent: new Map(),
    model: new Map(),
    tool: new Map(),
    toolset: new Map(),
    middleware: new Map(),
    memory: new Map(),
    test: new Map(),
    schedule: new Map(),
  };
}
