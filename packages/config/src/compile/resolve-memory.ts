import type { MemoryDefinition, MemoryProvider } from '@agentctl/core';
import type { AgentDefinition } from '../definitions.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { Compiler } from './compiler.js';

/** The memory of an agent (its own or the project default), made once per name; undefined when none is set. */
export async function resolveMemory(
  agent: SpecEntry,
  spec: AgentDefinition,
  compiler: Compiler,
): Promise<MemoryProvider | undefined | false> {
  const project = compiler.specs.project;
  const name = spec.memory ?? compiler.project.defaults.memory;
  if (name === undefined) return undefined;
  const where: SpecEntry = spec.memory !== undefined || !project ? agent : project;
  const path = spec.memory !== undefined ? ['memory'] : ['defaults', 'memory'];
  let pending = compiler.memories.get(name);
  if (!pending) {
    pending = (async () => {
      const entry = compiler.specs.memory.get(name);
      // A name with no document is a backend used with its defaults (`memory: memory`).
      const memory: MemoryDefinition | undefined = entry
        ? compiler.definition('memory', entry)
        : { name, backend: name, options: {} };
      if (!memory) return undefined;
      const factory = compiler.registry.memory.get(memory.backend);
      const at = entry ?? where;
      const atPath = entry ? ['backend'] : path;
      if (!factory) {
        compiler.error(
          at,
          atPath,
          'unknown-memory',
          `memory backend \`${memory.backend}\` is not available (registered: ${[...compiler.registry.memory.keys()].join(', ')})`,
        );
        return undefined;
      }
      // The path is relative to the memory document's file, as validate reads it, and confined
      // by the path resolver before any backend writes there.
      return compiler.attempt(at, memory.path !== undefined ? ['path'] : atPath, 'memory', () => {
        const ctx = compiler.factoryContext(at);
        const path = memory.path === undefined ? undefined : ctx.resolvePath(memory.path);
        return factory({ ...memory, path }, ctx);
      });
    })();
    compiler.memories.set(name, pending);
  }
  return (await pending) ?? false;
}
