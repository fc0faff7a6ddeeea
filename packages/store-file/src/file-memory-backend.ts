import { isAbsolute, relative, resolve } from 'node:path';
import { parseDuration, type RetentionSpec, retentionPolicy } from '@agentctl/core';
import { FileSessionStore } from './file-session-store.js';

/** The `kind: memory` fields the file backend reads (snake_case as in YAML, camelCase from code). */
export interface FileMemorySpec {
  /** Sessions folder, relative to the project root. Default `.agentctl/sessions`. */
  path?: string;
  retention?: RetentionSpec;
}

/** What the registry passes to a memory backend factory. */
export interface FileMemoryContext {
  /** The project root; `path` is resolved against it. */
  root: string;
}

/** The name to register the file backend under (`backend: file` in YAML). */
export const FILE_MEMORY_BACKEND = 'file';

/**
 * The `file` memory backend for the config registry: a {@link FileSessionStore} (which is both a
 * SessionStore and a MemoryProvider) in `<root>/<path>`.
 *
 * @example
 * registry.registerMemory(FILE_MEMORY_BACKEND, fileMemoryBackend);
 */
export function fileMemoryBackend(spec: FileMemorySpec, ctx: FileMemoryContext): FileSessionStore {
  const root = resolve(ctx.root);
  const path = resolve(root, spec.path ?? '.agentctl/sessions');
  const inside = relative(root, path);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new Error(`memory path ${spec.path} is outside the project folder ${root}`);
  }
  return new FileSessionStore({ path, retention: retentionPolicy(spec.retention) });
}

/** Milliseconds from a number or a string like `30d`; throws naming the field when it cannot be read. */
export function durationMs(value: number | string): number {
  return parseDuration(value, 'retention.max_age');
}
