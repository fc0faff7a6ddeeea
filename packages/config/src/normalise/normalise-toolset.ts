import { parseDuration, type ToolsetDefinition } from '@agentctl/core';
import type { ToolsetSpec } from '../spec-types.js';

/** The definition of a toolset spec that passed its schema. */
export function normaliseToolset(spec: ToolsetSpec): ToolsetDefinition {
  return {
    name: spec.name,
    description: spec.description,
    mcp: { ...spec.mcp },
    include: spec.include,
    exclude: spec.exclude,
    prefix: spec.prefix,
    approval: spec.approval,
    timeoutMs: parseDuration(spec.timeout, 'timeout'),
    startTimeoutMs: parseDuration(spec.start_timeout, 'start_timeout'),
    maxBytes: spec.max_bytes,
  };
}
