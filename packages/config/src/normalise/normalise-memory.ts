import { type MemoryDefinition, parseDuration } from '@agentctl/core';
import type { Registry } from '../registry.js';
import type { MemorySpec } from '../spec-types.js';
import { normaliseOptions } from './normalise-options.js';

/** The backend a memory without `backend:` is stored in. */
export const DEFAULT_MEMORY_BACKEND = 'file';

/** The definition of a memory spec that passed its schema; `path` stays as written until compile resolves it. */
export function normaliseMemory(spec: MemorySpec, registry: Registry): MemoryDefinition {
  const backend = spec.backend ?? DEFAULT_MEMORY_BACKEND;
  const retention = spec.retention;
  return {
    name: spec.name,
    description: spec.description,
    backend,
    path: spec.path,
    url: spec.url,
    retention: retention && {
      maxSessions: retention.max_sessions,
      maxAgeMs: parseDuration(retention.max_age, 'retention.max_age'),
    },
    options: normaliseOptions(spec.options, registry.describe('memory', backend)?.schema),
  };
}
