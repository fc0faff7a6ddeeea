import {
  type AnyTool,
  type ApprovalMode,
  approvalModeFor,
  deadline,
  errorText,
  parseDuration,
} from '@agentctl/core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { invalidAnswer } from './invalid-answer.js';
import { McpConnection, type McpServerInfo } from './mcp-connection.js';
import { type McpToolInfo, mcpTool } from './mcp-tool.js';
import { isStdioServer, type McpToolsetContext, type McpToolsetSpec } from './mcp-toolset-spec.js';
import { exposedName, filterNames } from './name-filter.js';
import { schemaDepth } from './schema-depth.js';

// More tools than any model is offered at once: a list past it is a server paging without end.
const MAX_LISTED_TOOLS = 1000;
// Deeper than any tool's parameters need: past it, checking arguments or sending the schema to a
// provider would overflow the call stack.
const MAX_SCHEMA_DEPTH = 100;

/** An MCP server's tools as core tools, with the client that calls them. */
export class McpToolset {
  /** The toolset's name. */
  readonly name: string;
  readonly #spec: McpToolsetSpec;
  readonly #context: McpToolsetContext;
  readonly #connection: McpConnection;
  readonly #timeout: number | undefined;
  #tools: AnyTool[] = [];
  readonly #modes = new Map<string, ApprovalMode>();
  #loading: Promise<AnyTool[]> | undefined;

  constructor(spec: McpToolsetSpec, context: McpToolsetContext) {
    this.name = spec.name;
    this.#spec = spec;
    this.#context = context;
    const server =
      isStdioServer(spec.mcp) && spec.mcp.cwd && context.resolvePath
        ? { ...spec.mcp, cwd: context.resolvePath(spec.mcp.cwd) }
        : spec.mcp;
    this.#timeout = parseDuration(spec.timeout, `toolset "${spec.name}": timeout`);
    this.#connection = new McpConnection(spec.name, server, context.root, spec.startTimeout);
  }

  /** The tools, filtered and prefixed; empty until {@link load} has run for a lazy toolset. */
  get tools(): AnyTool[] {
    return this.#tools;
  }

  /** The approval mode of every tool, by the name the model sees, for the approval policy. */
  get approvalModes(): Record<string, ApprovalMode> {
    return Object.fromEntries(this.#tools.map((tool) => [tool.name, this.#modes.get(tool.name) ?? 'never']));
  }

  /** The server's name and version, known once connected. */
  get serverInfo(): McpServerInfo | undefined {
    return this.#connection.serverInfo;
  }

  /** The server's process id while a stdio server runs. */
  get pid(): number | undefined {
    return this.#connection.pid;
  }

  /** How many times the server was restarted after stopping. */
  get restarts(): number {
    return this.#connection.restarts;
  }

  /** Starts the server and lists its tools, once; later calls return the same list. */
  load(): Promise<AnyTool[]> {
    this.#loading ??= this.#list().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  /** Closes the client and ends the server process. */
  async dispose(): Promise<void> {
    await this.#connection.close();
  }

  /** Same as {@link dispose}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #listError(error: unknown, capabilities: Record<string, unknown> | undefined): unknown {
    const invalid = invalidAnswer(this.#spec.name, 'listed its tools', error);
    if (invalid) return invalid;
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      const tail = this.#connection.stderrTail();
      return new Error(
        `MCP server of toolset "${this.#spec.name}" (${this.#connection.target}) stopped while listing its tools${
          tail ? `; its last stderr lines: ${tail}` : ''
        }`,
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return new Error(
        `MCP server of toolset "${this.#spec.name}" (${this.#connection.target}) did not list its tools within ${this.#connection.startTimeout} ms`,
      );
    // The server's own refusal (a prompts-only server has no tools/list) would be quoted bare.
    if (error instanceof McpError) {
      const offers = Object.keys(capabilities ?? {});
      const none =
        capabilities && !('tools' in capabilities)
          ? `; it offers no tools (its capabilities: ${offers.join(', ') || 'none'})`
          : '';
      return new Error(
        `MCP server of toolset "${this.#spec.name}" (${this.#connection.target}) refused to list its tools: ${errorText(error.message)}${none}`,
        { cause: error },
      );
    }
    return error;
  }

  async #list(): Promise<AnyTool[]> {
    const { client } = await this.#connection.session();
    const listed: McpToolInfo[] = [];
    const server = `MCP server of toolset "${this.#spec.name}" (${this.#connection.target})`;
    // The whole list, every page of it, within the start timeout: a server may page without end.
    const limit = deadline(
      undefined,
      this.#connection.startTimeout,
      () => new Error(`${server} did not list its tools within ${this.#connection.startTimeout} ms`),
    );
    const cursors = new Set<string>();
    let cursor: string | undefined;
    try {
      do {
        const page = await limit.race(
          client
            .listTools(cursor ? { cursor } : undefined, { timeout: this.#connection.startTimeout })
            .catch((error: unknown) =>
              Promise.reject(this.#listError(error, client.getServerCapabilities())),
            ),
        );
        listed.push(...(page.tools as McpToolInfo[]));
        if (listed.length > MAX_LISTED_TOOLS)
          throw new Error(`${server} listed more than ${MAX_LISTED_TOOLS} tools; no model takes that many`);
        cursor = page.nextCursor;
        if (cursor !== undefined && cursors.has(cursor))
          throw new Error(
            `${server} sent the page cursor "${cursor.slice(0, 100)}" twice while listing its tools`,
          );
        if (cursor !== undefined) cursors.add(cursor);
      } while (cursor);
    } finally {
      limit.dispose();
    }
    const spec = this.#spec;
    const keep = new Set(
      filterNames(
        listed.map((t) => t.name),
        spec.include,
        spec.exclude,
      ),
    );
    const seen = new Map<string, string>();
    const tools: AnyTool[] = [];
    for (const info of listed) {
      if (!keep.has(info.name)) continue;
      const name = exposedName(info.name, spec.prefix);
      const clash = seen.get(name);
      if (clash === info.name)
        throw new Error(
          `MCP server of toolset "${spec.name}" lists two tools named "${info.name}"; exclude it, or fix the server`,
        );
      if (clash !== undefined) {
        throw new Error(
          `MCP toolset "${spec.name}": tools "${clash}" and "${info.name}" both become "${name}"; exclude one of them`,
        );
      }
      seen.set(name, info.name);
      if (schemaDepth(info.inputSchema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH)
        throw new Error(
          `MCP server of toolset "${spec.name}" lists the tool "${info.name}" with an inputSchema nested more than ${MAX_SCHEMA_DEPTH} levels deep; exclude it`,
        );
      const mode = approvalMode(spec.approval, name, info.name);
      this.#modes.set(name, mode);
      tools.push(
        mcpTool(info, {
          toolset: spec.name,
          connection: this.#connection,
          exposedName: name,
          needsApproval: mode !== 'never',
          timeout: this.#timeout,
          maxBytes: spec.maxBytes,
          context: this.#context,
        }),
      );
    }
    this.#tools = tools;
    return tools;
  }
}

/**
 * Connects to an MCP server and lists its tools (unless `lazy`: then on `load()`).
 *
 * @example
 * const docs = await createMcpToolset(
 *   { name: 'docs', mcp: { command: 'mcp-server-filesystem', args: ['./docs'] }, prefix: 'docs_' },
 *   { root: process.cwd() },
 * );
 * const agent = createAgent({ name: 'a', provider: offline('auto'), tools: docs.tools });
 * // ... later
 * await docs.dispose();
 */
export async function createMcpToolset(
  spec: McpToolsetSpec,
  context: McpToolsetContext,
): Promise<McpToolset> {
  const toolset = new McpToolset(spec, context);
  if (spec.lazy) return toolset;
  try {
    await toolset.load();
  } catch (error) {
    await toolset.dispose();
    throw error;
  }
  return toolset;
}

// An exact name wins over a pattern, the name the model sees over the server's, and the closest
// pattern over the others.
function approvalMode(approval: McpToolsetSpec['approval'], exposed: string, original: string): ApprovalMode {
  if (approval === undefined) return 'never';
  if (typeof approval === 'string') return approval;
  return approvalModeFor(approval, [exposed, original]) ?? 'never';
}
