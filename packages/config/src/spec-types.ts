/**
 * The raw specs as written in YAML (snake_case), one interface per kind. The JSON Schemas in
 * `schemas/` are the source of truth; a drift test checks these types against them.
 */

import type { TestSpec } from './test-spec-types.js';

export type * from './test-spec-types.js';

/** A duration: milliseconds, or a string such as `30s`, `2m`. */
export type DurationSpec = number | string;

/** How a tool call is approved. */
export type ApprovalMode = 'always' | 'never' | 'once-per-session';

/** `agentctl.yaml`. */
export interface ProjectSpec {
  $schema?: string;
  kind: 'project';
  name?: string;
  description?: string;
  include?: string[];
  exclude?: string[];
  env_file?: string;
  defaults?: { model?: string; memory?: string };
  /** Globs of the files holding `kind: test` documents. */
  tests?: string[];
  queue?: QueueSpec;
}

/** `queue:` of the project file: the run queue (BullMQ on Redis) and its retries, as written. */
export interface QueueSpec {
  url?: string;
  concurrency?: number;
  attempts?: number;
  backoff?: { type: 'fixed' | 'exponential'; delay: DurationSpec };
  lock_duration?: DurationSpec;
  stalled_interval?: DurationSpec;
  max_stalled?: number;
}

/**
 * A rule on tool calls: a tool name (`*` wildcards), or the name and patterns on arguments (a
 * `*` glob or a `/regex/flags` per argument name, dotted for nested fields).
 */
export type ApprovalRuleSpec = string | { tool: string; args?: Record<string, string> };

/** Options of a built-in tool, written beside `builtin` or under `options` (snake_case). */
export interface BuiltinOptionsSpec {
  allowed_hosts?: string[];
  max_bytes?: number;
  max_entries?: number;
  root?: string;
  timeout?: DurationSpec;
  timezone?: string;
  description?: string;
  options?: Record<string, unknown>;
}

/** One entry of an agent's `tools`. */
export type ToolRefSpec =
  | string
  | ({ builtin: string } & BuiltinOptionsSpec)
  | { module: string; export?: string }
  | { toolset: string }
  | { agent: string };

/** One entry of an agent's `middleware`: a name, or `{ name: options }`. */
export type MiddlewareRefSpec = string | Record<string, Record<string, unknown>>;

/** An agent (a document, or inline in `sub_agents` without `kind`). */
export interface AgentSpec {
  $schema?: string;
  kind?: 'agent';
  name: string;
  description?: string;
  type?: 'llm' | 'sequential' | 'parallel' | 'loop' | 'a2a';
  /** `type: a2a`: the remote agent's A2A endpoint (its card is at `<url>/.well-known/agent-card.json`). */
  url?: string;
  /** `type: a2a`: HTTP headers sent to the remote agent, such as `Authorization`. */
  headers?: Record<string, string>;
  model?: string;
  instruction?: string;
  instruction_file?: string;
  tools?: ToolRefSpec[];
  sub_agents?: Array<string | AgentSpec>;
  middleware?: MiddlewareRefSpec[];
  memory?: string;
  output_schema?: Record<string, unknown>;
  output_key?: string;
  limits?: {
    max_iterations?: number;
    max_tokens?: number;
    timeout?: DurationSpec;
    tool_timeout?: DurationSpec;
    max_tool_result_bytes?: number;
  };
  approval?: {
    tools?: Record<string, ApprovalMode>;
    allow?: ApprovalRuleSpec[];
    deny?: ApprovalRuleSpec[];
  };
  temperature?: number;
  top_p?: number;
  max_output_tokens?: number;
  max_iterations?: number;
  disallow_transfer_to_parent?: boolean;
  disallow_transfer_to_peers?: boolean;
  max_history?: number | { messages?: number; tokens?: number };
}

/** One turn of an offline script, as written in YAML. */
export interface ScriptTurnSpec {
  match?: string;
  text?: string;
  tool_calls?: Array<{ name: string; arguments?: Record<string, unknown>; id?: string }>;
  error?: string | { message: string; code?: string; retryable?: boolean };
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
  };
  delay_ms?: number;
  fallback?: boolean;
}

/** A named model. */
export interface ModelSpec {
  $schema?: string;
  kind: 'model';
  name: string;
  description?: string;
  provider: string;
  model?: string;
  base_url?: string;
  api_key?: string;
  temperature?: number;
  top_p?: number;
  max_output_tokens?: number;
  timeout?: DurationSpec;
  retry?: { max_attempts?: number; initial_delay?: DurationSpec; max_delay?: DurationSpec };
  pricing?: { input: number; output: number; cache_read?: number; cache_write?: number };
  /** The provider's options, typed by its registry descriptor; `extra_body` is sent as is. */
  options?: Record<string, unknown>;
  reasoning?: { effort?: 'minimal' | 'low' | 'medium' | 'high'; budget_tokens?: number };
  parallel_tool_calls?: boolean;
  /** Models asked in order when this one fails with a retryable error after its own retries. */
  fallback?: string[];
  /** How long a failed model of the chain is passed over. */
  cooldown?: DurationSpec;
  script?: string | ScriptTurnSpec[];
  cassette?: string;
}

/** The `http` implementation of a tool. */
export interface HttpToolSpec {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  allowed_hosts?: string[];
  max_response_bytes?: number;
}

/** The `command` implementation of a tool. */
export interface CommandToolSpec {
  argv: string[];
  stdin_json?: boolean;
  cwd?: string;
  env?: string[];
  max_output_bytes?: number;
  allow_dash?: string[];
}

/** A named tool. */
export interface ToolSpec {
  $schema?: string;
  kind: 'tool';
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  needs_approval?: boolean;
  timeout?: DurationSpec;
  idempotent?: boolean;
  module?: { path: string; export?: string };
  http?: HttpToolSpec;
  command?: CommandToolSpec;
}

/** A named set of MCP tools. */
export interface ToolsetSpec {
  $schema?: string;
  kind: 'toolset';
  name: string;
  description?: string;
  mcp:
    | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
    | { url: string; headers?: Record<string, string> };
  include?: string[];
  exclude?: string[];
  prefix?: string;
  approval?: ApprovalMode | Record<string, ApprovalMode>;
  timeout?: DurationSpec;
  start_timeout?: DurationSpec;
  max_bytes?: number;
}

/** A named middleware. */
export interface MiddlewareSpec {
  $schema?: string;
  kind: 'middleware';
  name: string;
  description?: string;
  builtin?: string;
  module?: string;
  export?: string;
  options?: Record<string, unknown>;
}

/** A named memory. */
export interface MemorySpec {
  $schema?: string;
  kind: 'memory';
  name: string;
  description?: string;
  backend?: string;
  /** Connection URL of a server backend (postgres). */
  url?: string;
  path?: string;
  retention?: { max_sessions?: number; max_age?: DurationSpec };
  options?: Record<string, unknown>;
}

/** The spec type of each kind. */
export interface SpecByKind {
  project: ProjectSpec;
  agent: AgentSpec;
  model: ModelSpec;
  tool: ToolSpec;
  toolset: ToolsetSpec;
  middleware: MiddlewareSpec;
  memory: MemorySpec;
  test: TestSpec;
  schedule: ScheduleSpec;
}

/** A run on a cron schedule (`kind: schedule`), as written. */
export interface ScheduleSpec {
  $schema?: string;
  kind: 'schedule';
  name: string;
  description?: string;
  cron: string;
  agent: string;
  input: string;
  timezone?: string;
  session?: string;
}
