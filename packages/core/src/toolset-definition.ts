/**
 * The toolset definition a toolset kind (an MCP client) is made from: a `kind: toolset`
 * document, camelCase, durations in ms. No YAML spelling crosses into a toolset package.
 */
import type { ApprovalMode } from './approval-policy.js';

/** An MCP server started as a child process (stdio) or reached over streamable HTTP. */
export type McpServerDefinition =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> };

/** A `kind: toolset` document, normalised. */
export interface ToolsetDefinition {
  name: string;
  description?: string;
  /** The server: `command` (stdio) or `url`. */
  mcp: McpServerDefinition;
  /** Server tool names to keep (`*` wildcards); unset keeps every tool. */
  include?: string[];
  /** Server tool names to drop (`*` wildcards), after `include`. */
  exclude?: string[];
  /** Joined to every tool name exactly as written. */
  prefix?: string;
  /** One mode for every tool, or a mode per tool name (exposed or server name, `*` wildcards). */
  approval?: ApprovalMode | Record<string, ApprovalMode>;
  /** How long one call may take, ms. */
  timeoutMs?: number;
  /** How long the server has to start, answer the handshake and list its tools, ms. */
  startTimeoutMs?: number;
  /** Bytes of one tool answer the model gets at most. */
  maxBytes?: number;
}
