// The page reads agentctl's public HTTP API, whose shapes are the server's and the core's own types:
// imported for their types only, so none of their code reaches the page's bundle.
import type { AgentEvent, PendingApproval, SessionSummary } from '@agentctl/core';

export type {
  AgentEvent,
  EventOf,
  Message,
  PendingApproval,
  SessionSummary,
  ToolCall,
  UsageStats,
} from '@agentctl/core';
export type {
  AgentNode,
  ProjectDiagnostic,
  ProjectStatus,
  ProjectView,
  SourcePosition,
  ToolNode,
} from '@agentctl/server';

/** `GET /sessions/:id`: the session with its events, and what it waits for when paused. */
export interface SessionView extends SessionSummary {
  state: Record<string, unknown>;
  events: AgentEvent[];
  pending: PendingApproval[];
}
