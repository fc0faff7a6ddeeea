import { resolve } from 'node:path';
import { isInside, type MemoryDefinition, retentionPolicy } from '@agentctl/core';
import { FileSessionStore } from './file-session-store.js';

/** What the file backend reads of a memory definition (config passes the whole normalised one). */
export type FileMemoryDefinition = Partial<Pick<MemoryDefinition, 'path' | 'retention'>>;

/** What the registry passes to a memory backend factory. */
export interface FileMemoryContext {
  /** The project root; a relative `path` is resolved against it. */
  root: string;
}

/** The name to register the file backend under (`backend: file` in YAML). */
export const FILE_MEMORY_BACKEND = 'file';

/**
 * The `file` memory backend for the config registry: a {@link FileSessionStore} (which is both a
 * SessionStore and a MemoryProvider) in `<root>/<path>`, from the normalised memory definition.
 *
 * @example
 * registry.registerMemory(FILE_MEMORY_BACKEND, fileMemoryBackend);
 */
export function fileMemoryBackend(memory: FileMemoryDefinition, ctx: FileMemoryContext): FileSessionStore {
  const root = resolve(ctx.root);
  const path = resolve(root, memory.path ?? '.agentctl/sessions');
  if (!isInside(root, path)) {
    throw new Error(`memory path ${memory.path} is outside the project folder ${root}`);
  }
  return new FileSessionStore({ path, retention: retentionPolicy(memory.retention) });
}
