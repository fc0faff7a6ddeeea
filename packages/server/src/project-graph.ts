import type { AgentSpec, ProjectSpecs, SourceRange, SpecEntry, ToolRefSpec } from '@agentctl/config';
import { type Agent, transferTargets } from '@agentctl/core';
import type { AgentNode, SourcePosition, ToolNode } from './project-view.js';

/** What {@link projectGraph} reads of a compiled project. */
export interface ProjectGraphInput {
  specs: ProjectSpecs;
  /** The agents that compiled; the others are drawn from their YAML and marked not runnable. */
  agents: ReadonlyMap<string, Agent>;
}

// Keys every tool document may have; the one left names its kind (module, http, command, a plugin's).
const TOOL_COMMON_KEYS = new Set([
  '$schema',
  'kind',
  'name',
  'description',
  'parameters',
  'needs_approval',
  'timeout',
  'idempotent',
]);

/**
 * The agent graph of a project, sorted by name: each agent with where it is written, its
 * sub-agents, transfer targets, agent tools, tools and toolsets. Read from the YAML, so an agent
 * that failed to compile is still drawn; transfers come from the compiled tree when there is one,
 * by the same rule the runtime offers them.
 */
export function projectGraph({ specs, agents }: ProjectGraphInput): AgentNode[] {
  const entries = specs.agent as Map<string, SpecEntry<AgentSpec>>;
  return [...entries.values()]
    .map((entry) => agentNode(entry, specs, agents.get(entry.name)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function agentNode(entry: SpecEntry<AgentSpec>, specs: ProjectSpecs, compiled: Agent | undefined): AgentNode {
  const spec = entry.spec;
  const type = spec.type ?? 'llm';
  const subAgents = (spec.sub_agents ?? []).map((sub) => (typeof sub === 'string' ? sub : sub.name));
  const node: AgentNode = {
    name: entry.name,
    type,
    source: position(entry.file, entry.range),
    subAgents,
    transfers: type !== 'llm' ? [] : compiled ? transferTargets(compiled).map((a) => a.name) : subAgents,
    agentTools: [],
    tools: [],
    toolsets: [],
    runnable: compiled !== undefined,
  };
  if (spec.description) node.description = spec.description;
  // An LLM agent without a model of its own runs on the project's default.
  const model = spec.model ?? (type === 'llm' ? specs.project?.spec.defaults?.model : undefined);
  if (typeof model === 'string') node.model = model;
  if (entry.parent) node.parent = entry.parent;
  for (const [i, ref] of (spec.tools ?? []).entries())
    addTool(node, ref, () => position(entry.file, entry.locate(['tools', i])), specs);
  return node;
}

function addTool(
  node: AgentNode,
  ref: ToolRefSpec,
  written: () => SourcePosition,
  specs: ProjectSpecs,
): void {
  if (typeof ref === 'string') {
    const tool = specs.tool.get(ref);
    node.tools.push(
      toolNode(
        ref,
        tool ? toolKind(tool.spec as unknown as Record<string, unknown>) : 'unknown',
        tool ?? written,
      ),
    );
  } else if ('toolset' in ref) {
    const toolset = specs.toolset.get(ref.toolset);
    node.toolsets.push(toolNode(ref.toolset, 'mcp', toolset ?? written));
  } else if ('agent' in ref) node.agentTools.push(ref.agent);
  else if ('builtin' in ref) node.tools.push(toolNode(ref.builtin, 'builtin', written));
  else if ('module' in ref)
    node.tools.push(toolNode(ref.export ? `${ref.module}#${ref.export}` : ref.module, 'module', written));
}

// A named tool or toolset points at its own document; an inline one at its line in the agent.
function toolNode(name: string, kind: string, at: SpecEntry | (() => SourcePosition)): ToolNode {
  return { name, kind, source: typeof at === 'function' ? at() : position(at.file, at.range) };
}

function toolKind(spec: Record<string, unknown>): string {
  return Object.keys(spec).find((key) => !TOOL_COMMON_KEYS.has(key)) ?? 'unknown';
}

function position(file: string, range: SourceRange): SourcePosition {
  return { file, line: range.line, column: range.col };
}
