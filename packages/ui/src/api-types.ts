// The shapes the page reads from agentctl's public HTTP API (see openapi.json): the page is a client
// like any other, so it declares only the fields it uses.

/** Where a YAML node was written; 1-based line and column. */
export interface SourceRef {
  file: string;
  line: number;
  column: number;
}

/** A tool or toolset an agent uses. */
export interface ToolNode {
  name: string;
  kind: string;
  source?: SourceRef;
}

/** One agent of `GET /project`. */
export interface AgentNode {
  name: string;
  type: string;
  description?: string;
  model?: string;
  source: SourceRef;
  parent?: string;
  subAgents: string[];
  transfers: string[];
  agentTools: string[];
  tools: ToolNode[];
  toolsets: ToolNode[];
  runnable: boolean;
}

/** `GET /project`. */
export interface ProjectView {
  generation: number | null;
  root: string;
  agents: AgentNode[];
}

/** A diagnostic of a failed save. */
export interface Diagnostic {
  severity: string;
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
}

/** `GET /project/status` and each `status` event of `GET /project/events`. */
export interface ProjectStatus {
  watching: boolean;
  generation: number | null;
  ok: boolean;
  updatedAt: number;
  diagnostics: Diagnostic[];
  changes?: string;
}

/** Token counts and cost of a model call or a run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  totalTokens: number;
  iterations?: number;
  estimatedCost?: number;
}

/** A tool call a model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One message of a conversation. */
export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
  isError?: boolean;
}

/** A call waiting for a person: approve/deny, or an answer to the tool's question. */
export interface Pending {
  call: ToolCall;
  agent: string;
  reason?: string;
  kind?: 'approval' | 'input';
}

/** A run event, as streamed by `POST /agents/:agent/runs` and kept in `GET /sessions/:id`. */
export interface RunEvent {
  type: string;
  id: string;
  invocationId: string;
  branch: string;
  author: string;
  time: number;
  stateDelta?: Record<string, unknown>;
  [field: string]: unknown;
}

/** A session of `GET /sessions`. */
export interface SessionSummary {
  id: string;
  agent?: string;
  parentId?: string;
  parentCallId?: string;
  eventCount: number;
  paused: boolean;
  createdAt: number;
  updatedAt: number;
}

/** `GET /sessions/:id`. */
export interface SessionView extends SessionSummary {
  state: Record<string, unknown>;
  events: RunEvent[];
  pending: Pending[];
}

/** An agent of `GET /agents`. */
export interface AgentSummary {
  name: string;
  description?: string;
}
