import type { Diagnostic } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { ProjectSpecs } from '../load/project-specs.js';
import type { Registry } from '../registry.js';
import { KINDS } from '../schemas.js';
import type { AgentSpec } from '../spec-types.js';
import type { OptionCheckMemo } from './check-options.js';

/** What every rule reads: the index, every entry (duplicates included) and the environment. */
export interface RuleContext {
  root: string;
  specs: ProjectSpecs;
  entries: readonly IndexedEntry[];
  env: Env;
  /** The registry compile will use; rules about plugin names and options skip when absent. */
  registry?: Registry;
  /** Absolute paths of the files read only as test files (`tests:`), which `run` never reads. */
  testOnlyFiles?: ReadonlySet<string>;
  /** Absolute paths of every YAML file the project read (a file may hold no valid document). */
  parsedFiles?: ReadonlySet<string>;
  /** Plugin option checks made before (the project's cache), when the project keeps one. */
  optionChecks?: OptionCheckMemo;
  /** The tool names of each agent's `module:` entries (by entry index), when modules were checked. */
  moduleTools?: ReadonlyMap<IndexedEntry, ReadonlyMap<number, readonly string[]>>;
  /** The call `id:`s of each offline script model whose script file was read and is valid. */
  scriptCallIds?: ReadonlyMap<IndexedEntry, readonly string[]>;
}

/** The kinds `run` compiles, whose strings it interpolates (tests and schedules are their commands'). */
export const COMPILED_KINDS: ReadonlySet<string> = new Set(
  KINDS.filter((kind) => kind !== 'test' && kind !== 'schedule'),
);

/** A semantic check over the whole project. */
export type Rule = (ctx: RuleContext) => Diagnostic[];

/** Entries of one kind that passed the schema (the only ones whose fields rules may trust). */
export function validEntries<T>(
  ctx: RuleContext,
  kind: IndexedEntry['kind'],
): Array<IndexedEntry & { spec: T }> {
  return ctx.entries.filter((e) => e.kind === kind && e.valid) as Array<IndexedEntry & { spec: T }>;
}

/** Valid agents, inline ones included. */
export function validAgents(ctx: RuleContext): Array<IndexedEntry & { spec: AgentSpec }> {
  return validEntries<AgentSpec>(ctx, 'agent');
}

/** Calls `visit` for every string in a value, with its path. */
export function walkStrings(
  value: unknown,
  visit: (text: string, path: Array<string | number>) => void,
  path: Array<string | number> = [],
): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      walkStrings(item, visit, [...path, i]);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) walkStrings(item, visit, [...path, key]);
  }
}

/** The provider named by an agent's model: from a model document or an inline `provider/model`. */
export function providerOf(model: string | undefined, ctx: RuleContext): string | undefined {
  if (model === undefined) return undefined;
  const named = ctx.specs.model.get(model);
  if (named) return (named.spec as { provider?: string }).provider;
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : undefined;
}
