export { a2aRemoteAgent, reachA2ARemote } from './a2a-remote-agent.js';
export type { TaskRetention } from './a2a-task-store.js';
export { type AccessLogEntry, formatAccessLog, type LogFormat } from './access-log.js';
export type { AgentInfo, AgentLease, AgentSource } from './agent-source.js';
export { TOKEN_COOKIE } from './auth.js';
export { type AppOptions, createApp, type ServerApp } from './create-app.js';
export { errorBody, HttpError } from './http-error.js';
export { SESSION_HEADER } from './openai-run.js';
export { OPENAPI_DOCUMENT } from './openapi.js';
export { PAGE_PATH } from './page-routes.js';
export { type ProjectGraphInput, projectGraph } from './project-graph.js';
export { ProjectStatusBoard } from './project-status-board.js';
export type {
  AgentNode,
  ProjectDiagnostic,
  ProjectStatus,
  ProjectView,
  SourcePosition,
  ToolNode,
} from './project-view.js';
export { type PublicAddress, parsePublicUrl } from './public-address.js';
export type { QueuedRunEntry, QueuedRuns } from './queued-runs.js';
export { isLoopback } from './request-guard.js';
export { type DrainOutcome, type RunTicket, RunTracker, WIND_DOWN_MS } from './run-tracker.js';
export { type RunningServer, startServer } from './start-server.js';
