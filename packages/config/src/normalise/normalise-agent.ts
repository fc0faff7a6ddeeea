import type { AgentDefinition, MiddlewareRefDefinition, ToolRefDefinition } from '../definitions.js';
import type { Registry } from '../registry.js';
import type { AgentSpec, MiddlewareRefSpec, ToolRefSpec } from '../spec-types.js';
import { httpUrl } from './http-url.js';
import { normaliseOptions } from './normalise-options.js';
import { positiveDuration } from './positive-duration.js';

/** One `tools:` entry as compile takes it: a built-in's options camelCased, durations in ms. */
export function normaliseToolRef(ref: ToolRefSpec, registry: Registry): ToolRefDefinition {
  if (typeof ref === 'string') return { kind: 'tool', name: ref };
  if ('builtin' in ref) {
    const { builtin, options, ...inline } = ref;
    const schema = registry.describe('builtinTool', builtin)?.schema;
    return { kind: 'builtin', name: builtin, options: normaliseOptions({ ...options, ...inline }, schema) };
  }
  if ('module' in ref) return { kind: 'module', path: ref.module, export: ref.export };
  if ('toolset' in ref) return { kind: 'toolset', name: ref.toolset };
  return { kind: 'agent', name: ref.agent };
}

function middlewareRef(ref: MiddlewareRefSpec, registry: Registry): MiddlewareRefDefinition {
  if (typeof ref === 'string') return { name: ref, options: {} };
  const name = Object.keys(ref)[0];
  return { name, options: normaliseOptions(ref[name], registry.describe('middleware', name)?.schema) };
}

/** The definition of an agent spec that passed its schema (`${VAR}` resolved when compiling). */
export function normaliseAgent(spec: AgentSpec, registry: Registry): AgentDefinition {
  const limits = spec.limits ?? {};
  return {
    name: spec.name,
    description: spec.description,
    type: spec.type ?? 'llm',
    url: httpUrl(spec.url, 'url'),
    headers: spec.headers ?? {},
    model: spec.model,
    instruction: spec.instruction,
    instructionFile: spec.instruction_file,
    tools: (spec.tools ?? []).map((ref) => normaliseToolRef(ref, registry)),
    subAgents: (spec.sub_agents ?? []).map((sub) => (typeof sub === 'string' ? sub : sub.name)),
    middleware: (spec.middleware ?? []).map((ref) => middlewareRef(ref, registry)),
    memory: spec.memory,
    outputSchema: spec.output_schema,
    outputKey: spec.output_key,
    limits: {
      maxIterations: limits.max_iterations,
      maxTokens: limits.max_tokens,
      timeoutMs: positiveDuration(limits.timeout, 'limits.timeout'),
      toolTimeoutMs: positiveDuration(limits.tool_timeout, 'limits.tool_timeout'),
      maxToolResultBytes: limits.max_tool_result_bytes,
    },
    approval: {
      tools: spec.approval?.tools ?? {},
      allow: spec.approval?.allow ?? [],
      deny: spec.approval?.deny ?? [],
    },
    temperature: spec.temperature,
    topP: spec.top_p,
    maxOutputTokens: spec.max_output_tokens,
    maxIterations: spec.max_iterations,
    disallowTransferToParent: spec.disallow_transfer_to_parent,
    disallowTransferToPeers: spec.disallow_transfer_to_peers,
    maxHistory: spec.max_history,
  };
}
