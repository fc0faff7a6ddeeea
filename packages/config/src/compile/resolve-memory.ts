import type { MemoryProvider } from '@agentctl/core';
import type { SpecEntry } from '../load/project-specs.js';
import type { AgentSpec, MemorySpec, ProjectSpec } from '../spec-types.js';
import type { Compiler } from './compiler.js';

/** The memory of an agent (its own or the project default), made once per name; undefined when none is set. */
export async function resolveMemory(
  agent: SpecEntry<AgentSpec>,
  spec: AgentSpec,
  compiler: Compiler,
): Promise<MemoryProvider | undefined | false> {
  const project = compiler.specs.project;
  const name = spec.memory ?? (project?.spec as ProjectSpec | undefined)?.defaults?.memory;
  if (name === undefined) return undefined;
  const where: SpecEntry = spec.memory !== undefined || !project ? agent : project;
  const path = spec.memory !== undefined ? ['memory'] : ['defaults', 'memory'];
  let pending = compiler.memories.get(name);
  if (!pending) {
    pending = (async () => {
      const entry = compiler.specs.memory.get(name) as SpecEntry<MemorySpec> | undefined;
      const memorySpec: MemorySpec | undefined = entry
        ? compiler.resolved(entry)
        : { kind: 'memory', name, backend: name };
      if (!memorySpec) return undefined;
      const backend = memorySpec.backend ?? 'file';
      const factory = compiler.registry.memory.get(backend);
      const at = entry ?? where;
      const atPath = entry ? ['backend'] : path;
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
      return compiler.attempt(at, memorySpec.path !== undefined ? ['path'] : atPath, 'memory', () => {
        const ctx = compiler.factoryContext(at);
        const path = memorySpec.path === undefined ? undefined : ctx.resolvePath(memorySpec.path);
        return factory({ ...memorySpec, path }, ctx);
      });
    })();
    compiler.memories.set(name, pending);
  }
  return (await pending) ?? false;
}
