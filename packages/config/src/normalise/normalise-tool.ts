import type { ToolDefinition } from '../definitions.js';
import type { ToolSpec } from '../spec-types.js';
import { positiveDuration } from './positive-duration.js';

/**
 * The definition of a tool spec that passed its schema. Its kind is the first of `kinds` (the
 * registry's tool kinds) it has a key for; a tool with none is a `module` tool named by its spec.
 */
export function normaliseTool(spec: ToolSpec, kinds: readonly string[]): ToolDefinition {
  const written = spec as unknown as Record<string, unknown>;
  const http = spec.http;
  const command = spec.command;
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    needsApproval: spec.needs_approval,
    idempotent: spec.idempotent,
    timeoutMs: positiveDuration(spec.timeout, 'timeout'),
    kind: kinds.find((kind) => written[kind] !== undefined) ?? 'module',
    module: spec.module && { path: spec.module.path, export: spec.module.export },
    http: http && {
      method: http.method ?? 'GET',
      url: http.url,
      headers: http.headers ?? {},
      body: http.body,
      allowedHosts: http.allowed_hosts,
      maxResponseBytes: http.max_response_bytes,
    },
    command: command && {
      argv: command.argv,
      stdinJson: command.stdin_json === true,
      cwd: command.cwd,
      env: command.env ?? [],
      maxOutputBytes: command.max_output_bytes,
      allowDash: command.allow_dash ?? [],
    },
  };
}
