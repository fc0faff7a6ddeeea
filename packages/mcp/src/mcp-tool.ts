import { type AnyTool, defineTool, errorText, type JsonSchema, messageWithCause } from '@agentctl/core';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AnswerTooLargeError } from './answer-size-limit.js';
import { invalidAnswer } from './invalid-answer.js';
import { mapCallResult } from './map-result.js';
import type { McpConnection } from './mcp-connection.js';
import type { McpToolsetContext } from './mcp-toolset-spec.js';

/** An MCP tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** What every tool of one toolset shares. */
export interface McpToolOptions {
  toolset: string;
  connection: McpConnection;
  /** The name the model sees. */
  exposedName: string;
  needsApproval: boolean;
  timeout?: number;
  /** Bytes of one answer's text the model gets at most. */
  maxBytes?: number;
  context: McpToolsetContext;
}

// A description goes into every model request that offers the tool: a server's multi-megabyte one
// would be resent, and paid for, on every step.
const MAX_DESCRIPTION = 8192;

// The description the model reads: the server's, cut to MAX_DESCRIPTION characters with a note.
function toolDescription(info: McpToolInfo, toolset: string): string {
  const written = info.description ?? info.title ?? `${info.name} (MCP toolset ${toolset})`;
  if (written.length <= MAX_DESCRIPTION) return written;
  return `${written.slice(0, MAX_DESCRIPTION)} [cut by agentctl: the server's description of this tool has ${written.length} characters]`;
}

// Without a toolset timeout the loop's tool timeout governs (through the signal); the SDK's own
// default of 60 s would otherwise cut calls the agent allows to run longer.
const BACKSTOP_TIMEOUT = 24 * 60 * 60 * 1000;
// With a toolset timeout the client's own deadline comes first, so that the error names the
// server and the call is cancelled there; the loop's deadline, a little later, is the backstop.
const LOOP_GRACE_MS = 1000;

/** Makes a core tool that calls one MCP tool, restarting a stopped server first. */
export function mcpTool(info: McpToolInfo, options: McpToolOptions): AnyTool {
  const { toolset, connection, context } = options;
  return defineTool<Record<string, unknown>>({
    name: options.exposedName,
    description: toolDescription(info, toolset),
    // Passed as the server wrote it: core's validator accepts a draft-07 `$schema` marker.
    parameters: info.inputSchema as JsonSchema,
    needsApproval: options.needsApproval,
    timeout: options.timeout === undefined ? undefined : options.timeout + LOOP_GRACE_MS,
    async execute(args, ctx) {
      const started = performance.now();
      const { client, restartedAfter } = await connection.session();
      // The toolset timeout is the whole call's, a restart included: the client's deadline is
      // what is left of it, so that it still comes before the loop's, and its error names the server.
      const timeout =
        options.timeout === undefined
          ? BACKSTOP_TIMEOUT
          : Math.max(1, options.timeout - (performance.now() - started));
      const note = restartedAfter
        ? `[MCP server of toolset "${toolset}" was ${connection.remote ? 'connected to again' : 'restarted'} before this call: ${restartedAfter}]`
        : undefined;
      if (restartedAfter) {
        context.onRestart?.({ toolset, restarts: connection.restarts, reason: restartedAfter });
      }
      let result: Record<string, unknown>;
      try {
        result = (await client.callTool({ name: info.name, arguments: args }, undefined, {
          signal: ctx.signal,
          timeout,
          onprogress: context.onProgress
            ? (p) =>
                context.onProgress?.({
                  toolset,
                  tool: options.exposedName,
                  callId: ctx.callId,
                  progress: p.progress,
                  total: p.total,
                  message: p.message,
                })
            : undefined,
        })) as Record<string, unknown>;
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        throw callError(error, toolset, info.name, connection, options.timeout);
      }
      return mapCallResult(result, note, options.maxBytes);
    },
  });
}

function callError(
  error: unknown,
  toolset: string,
  tool: string,
  connection: McpConnection,
  timeout: number | undefined,
): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof McpError && error.code === -32001) {
    return new Error(
      `MCP server of toolset "${toolset}" did not answer the call of ${tool} within ${timeout ?? BACKSTOP_TIMEOUT} ms (the toolset's timeout); the call was cancelled`,
    );
  }
  if (error instanceof McpError && error.code === -32000) {
    const tail = connection.stderrTail();
    const why = connection.whyStopped();
    return new Error(
      `MCP server of toolset "${toolset}" ${why ? `was stopped during the call: ${why}` : 'stopped during the call'}; it is ${connection.remote ? 'connected to again' : 'restarted'} on the next call${
        tail ? `. Its last stderr lines: ${tail}` : ''
      }`,
    );
  }
  // The client checks structured content against the tool's outputSchema, and says so bare.
  if (error instanceof McpError && /output schema/.test(message))
    return new Error(
      `MCP server of toolset "${toolset}" answered the call of ${tool} with what its outputSchema does not allow: ${errorText(message.replace(/^MCP error -?\d+: /, ''))}`,
      { cause: error },
    );
  // An answer that breaks the MCP schema came from a live server: it keeps running (and its state).
  const invalid = invalidAnswer(toolset, `answered the call of ${tool}`, error);
  if (invalid) return invalid;
  if (error instanceof AnswerTooLargeError)
    return new Error(`MCP server of toolset "${toolset}" answered the call of ${tool}, but ${error.message}`);
  // The connection is dropped (and made again on the next call) only when it is gone: the server
  // unreachable, or its session ended (404). A status a live server or a proxy gave one call (a
  // 502, a 401) is that call's failure: dropping would also fail every other call under way.
  const gone = connectionGone(error);
  // `fetch failed` says neither which server nor what failed; the cause does (a socket closed).
  if (gone) connection.markLost(connection.remote ? messageWithCause(error) : message);
  if (gone && connection.remote && !(error instanceof StreamableHTTPError))
    return new Error(
      `MCP server of toolset "${toolset}" (${connection.target}) could not be reached during the call of ${tool}: ${errorText(messageWithCause(error))}; it is connected to again on the next call`,
      { cause: error },
    );
  if (error instanceof StreamableHTTPError)
    return new Error(
      `MCP server of toolset "${toolset}" (${connection.target}) failed the call of ${tool}${error.code !== undefined && error.code > 0 ? ` with HTTP ${error.code}` : ''}: ${errorText(message)}`,
      { cause: error },
    );
  const said = errorText(message);
  if (said !== message) return new Error(said, { cause: error });
  return error instanceof Error ? error : new Error(message);
}

// True when the transport failed for want of a server: not an MCP error, nor an HTTP status other
// than 404 (the session the server no longer knows).
function connectionGone(error: unknown): boolean {
  if (error instanceof McpError) return false;
  if (error instanceof StreamableHTTPError) return error.code === 404;
  return true;
}
