import type { MemoryDefinition, MemoryProvider, SessionStore } from '@agentctl/core';
import type { DataPath } from '../load/node-range.js';
import type { SpecEntry } from '../load/project-specs.js';
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
  const entry = compiler.specs.memory.get(name);
  // A name with no document is a backend used with its defaults (`memory: memory`).
  const memory: MemoryDefinition | undefined = entry
    ? compiler.definition('memory', entry)
    : { name, backend: name, options: {} };
  if (!memory) return undefined;
  const backend = memory.backend;
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
  const field = memory.path !== undefined ? ['path'] : memory.url !== undefined ? ['url'] : atPath;
  const carried = compiler.carriedMemories;
  let key: string | undefined;
  const made = await compiler.attempt(at, field, 'memory', () => {
    const ctx = compiler.factoryContext(at);
    const path = memory.path === undefined ? undefined : ctx.resolvePath(memory.path);
    const definition = { ...memory, path };
    key = JSON.stringify(definition);
    return carried?.from.get(key) ?? factory(definition, ctx);
  });
  // Sessions in process live only in the store object: reused by the next generation when its
  // definition is unchanged, or a save would empty it (dev's chat, the dev UI's sessions).
  if (made && !made.close && carried && key !== undefined) carried.made.set(key, made);
  // A store holding connections (postgres) lets them go with the generation.
  if (made?.close) compiler.disposers.push(() => made.close?.() ?? Promise.resolve());
  return made;
}
