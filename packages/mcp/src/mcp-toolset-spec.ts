import type { ApprovalMode } from '@agentctl/core';

/** An MCP server started as a child process and spoken to over stdio. */
export interface McpStdioServer {
  /** The executable; never run through a shell. */
  command: string;
  args?: string[];
  /** Added to the few variables every server needs (PATH, HOME, ...); nothing else is inherited. */
  env?: Record<string, string>;
  /** Working directory, relative to the project folder and inside it. Default: the project folder. */
  cwd?: string;
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServer {
  url: string;
  headers?: Record<string, string>;
}

/** Where an MCP server is: a command to start, or a URL to reach. */
export type McpServerSpec = McpStdioServer | McpHttpServer;

/** A `kind: toolset` with `mcp:`: which server, which of its tools, and how they are called. */
export interface McpToolsetSpec {
  /** The toolset's name, used in messages and events. */
  name: string;
  mcp: McpServerSpec;
  /** Tool names (as the server names them) to keep; `*` is a wildcard. Default: every tool. */
  include?: string[];
  /** Tool names (as the server names them) to drop; `*` is a wildcard. Applied after `include`. */
  exclude?: string[];
  /** Prepended to every tool name exactly as written (`docs_` + `write_file`), to avoid collisions between toolsets. */
  prefix?: string;
  /** How long one call may take: milliseconds, or `500ms`, `30s`, `2m`, `1h`. Default: the agent's tool timeout. */
  timeout?: number | string;
  /**
   * Whether a human approves calls: one mode for every tool, or a mode per tool name (as the
   * model sees it, or as the server names it; `*` is a wildcard). Default `never`.
   */
  approval?: ApprovalMode | Record<string, ApprovalMode>;
  /** Connect and list tools on `load()` instead of at creation, for servers slow to start. */
  lazy?: boolean;
  /** Milliseconds the server has to start and answer the handshake. Default 30000. */
  startTimeout?: number;
  /** Bytes of one tool answer's text the model gets at most; longer text is cut with a note. Default 262144 (256 KiB). */
  maxBytes?: number;
}

/** A progress notification from a long-running MCP tool call. */
export interface McpProgress {
  toolset: string;
  /** The tool's name as the model sees it. */
  tool: string;
  callId: string;
  progress: number;
  total?: number;
  message?: string;
}

/** A server that stopped and was started (or reconnected) again. */
export interface McpRestart {
  toolset: string;
  /** How many times this toolset's server has been restarted so far. */
  restarts: number;
  /** What was known about the stop: exit or connection error, and the tail of stderr. */
  reason: string;
}

/** What a toolset needs from where it is created. */
export interface McpToolsetContext {
  /** The project folder; `cwd` resolves inside it. */
  root: string;
  /** Resolves a path written in the spec (relative to its file); used for `cwd` when given. */
  resolvePath?: (written: string) => string;
  /** Called for each progress notification of a long-running tool. */
  onProgress?: (progress: McpProgress) => void;
  /** Called when a stopped server is restarted before a call. */
  onRestart?: (restart: McpRestart) => void;
}

/** True when the server is started as a child process. */
export function isStdioServer(spec: McpServerSpec): spec is McpStdioServer {
  return typeof (spec as McpStdioServer).command === 'string';
}
