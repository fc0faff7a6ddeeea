import type { ToolsetDefinition } from '@agentctl/core';
import type { ToolsetSpec } from '../spec-types.js';
import { httpUrl } from './http-url.js';
import { positiveDuration } from './positive-duration.js';

/** The definition of a toolset spec that passed its schema. */
export function normaliseToolset(spec: ToolsetSpec): ToolsetDefinition {
  return {
    name: spec.name,
    description: spec.description,
    mcp: mcpOf(spec.mcp),
    include: spec.include,
    exclude: spec.exclude,
    prefix: spec.prefix,
    approval: spec.approval,
    timeoutMs: positiveDuration(spec.timeout, 'timeout'),
    startTimeoutMs: positiveDuration(spec.start_timeout, 'start_timeout'),
    maxBytes: spec.max_bytes,
  };
}

// An MCP server over HTTP needs an http(s) url, once `${VAR}` is resolved.
function mcpOf(mcp: ToolsetSpec['mcp']): ToolsetDefinition['mcp'] {
  const url = (mcp as { url?: string }).url;
  if (url !== undefined) httpUrl(url, 'mcp.url');
  return { ...mcp } as ToolsetDefinition['mcp'];
}
