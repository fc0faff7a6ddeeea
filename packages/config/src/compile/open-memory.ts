import { createRegistry } from '../create-registry.js';
import type { Diagnostic } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { projectEnv } from '../env/project-env.js';
import type { LoadedProject } from '../load/load-project.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { Registry } from '../registry.js';
import type { MemorySpec, ProjectSpec } from '../spec-types.js';
import { Compiler } from './compiler.js';
import { type MadeMemory, makeMemory } from './make-memory.js';

/** What {@link openMemory} opened: the memory (absent when it failed) and the problems found. */
export interface OpenedMemory {
  /** The memory, or undefined for the embedded default when the project names none. */
  memory?: MadeMemory;
  /** The memory's name, when the project names one. */
  name?: string;
  diagnostics: Diagnostic[];
  /** Closes what was opened. */
  dispose(): Promise<void>;
}

/**
 * Opens one memory of a project without compiling its agents, as `run` would make it: `name`, or
 * else the project's `defaults.memory`. With neither, `memory` is undefined (the caller's
 * embedded default applies).
 */
export async function openMemory(
  project: LoadedProject,
  options: { name?: string; registry?: Registry; env?: Env } = {},
): Promise<OpenedMemory> {
  const env = await projectEnv(project.root, project.specs, options.env);
  const compiler = new Compiler(project.root, project.specs, options.registry ?? createRegistry(), env);
  const dispose = async () => {
    await Promise.allSettled(compiler.disposers.map((d) => d()));
  };
  const projectEntry = project.specs.project;
  const byDefault = (projectEntry?.spec as ProjectSpec | undefined)?.defaults?.memory;
  const name = options.name ?? byDefault;
  if (name === undefined) return { diagnostics: [], dispose };
  const where = (projectEntry ?? project.specs.memory.get(name)) as SpecEntry | undefined;
  if (!where) {
    return { name, diagnostics: [], dispose, memory: undefined };
  }
  const memory = await makeMemory(compiler, name, where, options.name ? [] : ['defaults', 'memory']);
  return { name, memory, diagnostics: compiler.diagnostics, dispose };
}

/**
 * `validate --connect` for memories: opens every `kind: memory` document whose backend talks to a
 * server (capability `needsNetwork`), so a wrong URL, a refused connection or a failed login is
 * reported at its `url`; each is closed again before this returns.
 */
export async function connectMemories(
  project: LoadedProject,
  options: { registry?: Registry; env?: Env } = {},
): Promise<Diagnostic[]> {
  const env = await projectEnv(project.root, project.specs, options.env);
  const registry = options.registry ?? createRegistry();
  const compiler = new Compiler(project.root, project.specs, registry, env);
  for (const [name, entry] of project.specs.memory) {
    const backend = (entry.spec as MemorySpec).backend ?? 'file';
    if (registry.describe('memory', backend)?.capabilities?.needsNetwork !== true) continue;
    await makeMemory(compiler, name, entry, ['backend']);
  }
  await Promise.allSettled(compiler.disposers.map((d) => d()));
  return compiler.diagnostics;
}
