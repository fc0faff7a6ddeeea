import type { MemoryProvider } from '@agentctl/core';
import type { AgentDefinition } from '../definitions.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { Compiler } from './compiler.js';
import { makeMemory } from './make-memory.js';

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
    pending = makeMemory(compiler, name, where, path);
    compiler.memories.set(name, pending);
  }
  return (await pending) ?? false;
}
