export { McpToolError } from './map-result.js';
export type { McpServerInfo } from './mcp-connection.js';
export { McpStartError } from './mcp-start-error.js';
export { createMcpToolset, McpToolset } from './mcp-toolset.js';
export { mcpToolsetFactory } from './mcp-toolset-factory.js';
export {
  isStdioServer,
  type McpHttpServer,
  type McpProgress,
  type McpRestart,
  type McpServerSpec,
  type McpStdioServer,
  type McpToolsetContext,
  type McpToolsetSpec,
} from './mcp-toolset-spec.js';
