import type { MemoryProvider, SessionStore } from '@agentctl/core';
import type { DataPath } from '../load/node-range.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { MemorySpec } from '../spec-types.js';
import type { Compiler } from './compiler.js';

/** A memory backend's product: a MemoryProvider, often a session store too. */
export type MadeMemory = MemoryProvider & Partial<SessionStore>;

/**
 * Makes the memory named `name`: its `kind: memory` document, or else the backend of that name
 * with no options. Problems become diagnostics at the document (or at `where`/`wherePath`, the
 * field that named it); a store with `close` is closed when the compiler's products are disposed.
 */
export async function makeMemory(
  compiler: Compiler,
  name: string,
  where: SpecEntry,
  wherePath: DataPath,
): Promise<MadeMemory | undefined> {
  const entry = compiler.specs.memory.get(name) as SpecEntry<MemorySpec> | undefined;
  const memorySpec: MemorySpec | undefined = entry
    ? compiler.resolved(entry)
    : { kind: 'memory', name, backend: name };
  if (!memorySpec) return undefined;
  const backend = memorySpec.backend ?? 'file';
  const factory = compiler.registry.memory.get(backend);
  const at = entry ?? where;
  const atPath = entry ? ['backend'] : wherePath;
  if (!factory) {
    compiler.error(
      at,
      atPath,
      'unknown-memory',
      `memory backend \`${backend}\` is not available (registered: ${[...compiler.registry.memory.keys()].join(', ')})`,
    );
    return undefined;
  }
  // The path is relative to the memory document's file, as validate reads it, and confined
  // by the path resolver before any backend writes there.
  const field = memorySpec.path !== undefined ? ['path'] : memorySpec.url !== undefined ? ['url'] : atPath;
  const memory = await compiler.attempt(at, field, 'memory', () => {
    const ctx = compiler.factoryContext(at);
    const path = memorySpec.path === undefined ? undefined : ctx.resolvePath(memorySpec.path);
    return factory({ ...memorySpec, path }, ctx);
  });
  // A store holding connections (postgres) lets them go with the generation.
  if (memory?.close) compiler.disposers.push(() => memory.close?.() ?? Promise.resolve());
  return memory;
}
