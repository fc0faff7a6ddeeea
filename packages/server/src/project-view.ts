/** Where something is written: 1-based line and column, as in diagnostics. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** A tool or toolset an agent uses, and where it is declared. */
export interface ToolNode {
  name: string;
  /** `builtin`, `module`, `http`, `command`, `mcp` or a plugin's tool kind. */
  kind: string;
  source?: SourcePosition;
}

/** One agent of `GET /project`. */
export interface AgentNode {
  name: string;
  /** `llm`, `sequential`, `parallel`, `loop`, `a2a`, ... */
  type: string;
  description?: string;
  model?: string;
  source: SourcePosition;
  /** For an inline sub-agent: the agent it is written in. */
  parent?: string;
  subAgents: string[];
  /** The agents it may transfer the conversation to. */
  transfers: string[];
  /** The agents it calls as tools. */
  agentTools: string[];
  tools: ToolNode[];
  toolsets: ToolNode[];
  /** False when the agent did not compile (see the diagnostics) or was left out of this server. */
  runnable: boolean;
}

/** `GET /project`: the agent graph of the live generation. */
export interface ProjectView {
  /** The live generation, null while the project has never built. */
  generation: number | null;
  root: string;
  /** Sorted by name. */
  agents: AgentNode[];
}

/** A problem of a save, as `GET /project/status` reports it. */
export interface ProjectDiagnostic {
  severity: 'error' | 'warning';
  /** The rule that found it (as `validate --format json` names it). */
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
}

/** `GET /project/status` and each `status` event of `GET /project/events`: the reload state. */
export interface ProjectStatus {
  /** True when saves reload the project (`dev --ui`, `serve --watch`). */
  watching: boolean;
  generation: number | null;
  /** False while the last save is broken (the previous generation keeps serving). */
  ok: boolean;
  /** Milliseconds since the epoch of the last change of this status. */
  updatedAt: number;
  /** The diagnostics of the last failed save; empty after a good one. */
  diagnostics: ProjectDiagnostic[];
  /** What the last good reload changed, in one line (`1 changed: ~triage`). */
  changes?: string;
}
