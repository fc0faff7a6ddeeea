import { createHash } from 'node:crypto';
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ProjectSpecs, SpecEntry } from '../load/project-specs.js';
import { readRegularFile } from '../paths.js';
import type { ProjectSpec } from '../spec-types.js';

/** What a reload changed, by agent name. */
export interface AgentChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

const KINDS = ['agent', 'model', 'tool', 'toolset', 'middleware', 'memory'] as const;

function strings(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
  return out;
}

/** The SHA-1 of a file's content, or undefined when it is missing or not a file. */
export function fileHash(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    return createHash('sha1').update(readRegularFile(path)).digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * What a change to `path` is compared by: its content's hash, a symlink's target, or that it is a
 * folder; undefined when missing. A link made to a folder and then removed are two changes, where
 * {@link fileHash} sees no file either time.
 */
export function fileStamp(path: string): string | undefined {
  const hash = fileHash(path);
  if (hash !== undefined) return hash;
  try {
    if (lstatSync(path).isSymbolicLink()) return `link:${readlinkSync(path)}`;
    return statSync(path).isDirectory() ? 'folder' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A digest per agent of everything it is built from: its spec, every named spec it reaches (by any
 * string equal to a name, which over-approximates and never misses), the files those specs point
 * at (module tools, instruction files) and the project's .env. Equal digests mean an unchanged agent.
 */
export function agentFingerprints(
  root: string,
  specs: ProjectSpecs,
  /** Filled with the absolute paths of the files the specs point at. */
  files = new Set<string>(),
  /** The files each module imports (by the module's absolute path): a change to one changes the agent. */
  imports: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): Map<string, string> {
  const envFile = (specs.project?.spec as ProjectSpec | undefined)?.env_file ?? '.env';
  const envHash = fileHash(join(root, envFile)) ?? '';
  const out = new Map<string, string>();
  for (const [name, start] of specs.agent) {
    const hash = createHash('sha1').update(envHash);
    const seen = new Set<SpecEntry>();
    const queue: SpecEntry[] = [start as SpecEntry];
    while (queue.length > 0) {
      const entry = queue.shift() as SpecEntry;
      if (seen.has(entry)) continue;
      seen.add(entry);
      hash.update(`${entry.kind}:${entry.name}:${JSON.stringify(entry.spec)}`);
      for (const text of strings(entry.spec, [])) {
        for (const kind of KINDS) {
          const target = (specs[kind] as Map<string, SpecEntry>).get(text);
          if (target) queue.push(target);
        }
        if (/^\.{0,2}\/|\.(m|c)?[jt]s$|\.(md|txt|json)$/.test(text) && text.length < 300) {
          const path = resolve(dirname(entry.absFile), text);
          const file = fileHash(path);
          if (file) {
            hash.update(`${text}:${file}`);
            files.add(path);
          }
          for (const imported of imports.get(path) ?? [])
            if (imported !== path) hash.update(`${imported}:${fileHash(imported) ?? ''}`);
        }
      }
    }
    out.set(name, hash.digest('hex'));
  }
  return out;
}

/** Agents added, removed and changed between two sets of fingerprints. */
export function diffAgents(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): AgentChanges {
  const added = [...after.keys()].filter((name) => !before.has(name)).sort();
  const removed = [...before.keys()].filter((name) => !after.has(name)).sort();
  const changed = [...after.keys()]
    .filter((name) => before.has(name) && before.get(name) !== after.get(name))
    .sort();
  return { added, removed, changed };
}

/** One line for a human: `+a ~b -c`, or that nothing an agent uses changed. */
export function formatAgentChanges(changes: AgentChanges): string {
  const parts = [
    ...changes.added.map((name) => `+${name}`),
    ...changes.changed.map((name) => `~${name}`),
    ...changes.removed.map((name) => `-${name}`),
  ];
  if (parts.length === 0) return 'no agent changed';
  const counts = [
    changes.added.length > 0 ? `${changes.added.length} added` : '',
    changes.changed.length > 0 ? `${changes.changed.length} changed` : '',
    changes.removed.length > 0 ? `${changes.removed.length} removed` : '',
  ].filter(Boolean);
  return `${counts.join(', ')}: ${parts.join(' ')}`;
}
