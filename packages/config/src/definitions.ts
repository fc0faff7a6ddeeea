/**
 * The normalised definitions (camelCase, defaults filled, durations in ms), one per kind: what
 * compilation and plugin factories read. `spec-types.ts` holds the raw YAML shapes; only
 * `normalise/` reads those after the schema check. Definitions plugin packages take live in core.
 */
import type {
  ApprovalMode,
  HistoryWindow,
  MemoryDefinition,
  ModelDefinition,
  ToolsetDefinition,
} from '@agentctl/core';
import type { ApprovalRuleSpec } from './spec-types.js';
import type { TestDefinition } from './test-definition.js';

export type { MemoryDefinition, ModelDefinition, ToolsetDefinition } from '@agentctl/core';

/** `agentctl.yaml`, normalised. */
export interface ProjectDefinition {
  name?: string;
  description?: string;
  include?: string[];
  exclude?: string[];
  envFile?: string;
  defaults: { model?: string; memory?: string };
}

/** A `kind: schedule` document, normalised: a run of `agent` on `cron` (in `timezone`, default UTC). */
export interface ScheduleDefinition {
  name: string;
  description?: string;
  cron: string;
  agent: string;
  input: string;
  timezone?: string;
  /** A session every run continues; a new one per run when absent. */
  session?: string;
}

/** One entry of an agent's `tools`, normalised: what it names, and a built-in's options. */
export type ToolRefDefinition =
  | { kind: 'tool'; name: string }
  | {
      kind: 'builtin';
      name: string;
      /** Inline keys and `options:` merged, camelCased, durations in ms (paths as written). */
      options: Record<string, unknown>;
    }
  | { kind: 'module'; path: string; export?: string }
  | { kind: 'toolset'; name: string }
  | { kind: 'agent'; name: string };

/** One entry of an agent's `middleware`: a name (a document or a registered middleware) and options. */
export interface MiddlewareRefDefinition {
  name: string;
  /** Options written on the agent, camelCased, durations in ms when the plugin's schema says so. */
  options: Record<string, unknown>;
}

/** An agent's approval settings, normalised. */
export interface ApprovalDefinition {
  tools: Record<string, ApprovalMode>;
  allow: ApprovalRuleSpec[];
  deny: ApprovalRuleSpec[];
}

/** An agent (a document or inline in `sub_agents`), normalised. */
export interface AgentDefinition {
  name: string;
  description?: string;
  type: 'llm' | 'sequential' | 'parallel' | 'loop' | 'a2a';
  url?: string;
  headers: Record<string, string>;
  /** A named model or `provider/model`; unset takes the project default. */
  model?: string;
  instruction?: string;
  /** As written, relative to the agent's file. */
  instructionFile?: string;
  tools: ToolRefDefinition[];
  /** Sub-agents by name (inline ones are agents of their own in the index). */
  subAgents: string[];
  middleware: MiddlewareRefDefinition[];
  memory?: string;
  outputSchema?: Record<string, unknown>;
  outputKey?: string;
  limits: {
    maxIterations?: number;
    maxTokens?: number;
    timeoutMs?: number;
    toolTimeoutMs?: number;
    maxToolResultBytes?: number;
  };
  approval: ApprovalDefinition;
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  /** `type: loop`: the most rounds. */
  maxIterations?: number;
  disallowTransferToParent?: boolean;
  disallowTransferToPeers?: boolean;
  maxHistory?: number | HistoryWindow;
}

/** A `kind: tool` document, normalised; `kind` names its registered implementation kind. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  needsApproval?: boolean;
  timeoutMs?: number;
  /** Safe to run again after a worker stopped in the middle of a call. */
  idempotent?: boolean;
  /** The tool kind (`module`, `http`, `command`, ...) its implementation key names. */
  kind: string;
  module?: { path: string; export?: string };
  http?: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
    url: string;
    headers: Record<string, string>;
    body?: unknown;
    allowedHosts?: string[];
    maxResponseBytes?: number;
  };
  command?: {
    argv: string[];
    stdinJson: boolean;
    cwd?: string;
    env: string[];
    maxOutputBytes?: number;
    allowDash: string[];
  };
}

/** A `kind: middleware` document, normalised. */
export interface MiddlewareDefinition {
  name: string;
  description?: string;
  /** A registered middleware it configures. */
  builtin?: string;
  /** Or a module exporting one (as written, relative to its file). */
  module?: string;
  export: string;
  /** Options, camelCased, durations in ms when the plugin's schema says so. */
  options: Record<string, unknown>;
}

/** The definition type of each kind. */
export interface DefinitionByKind {
  project: ProjectDefinition;
  agent: AgentDefinition;
  model: ModelDefinition;
  tool: ToolDefinition;
  schedule: ScheduleDefinition;
  toolset: ToolsetDefinition;
  middleware: MiddlewareDefinition;
  memory: MemoryDefinition;
  test: TestDefinition;
}
