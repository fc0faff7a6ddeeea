import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { deadline, errorText, isInside, messageWithCause, sleep } from '@agentctl/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { answerSizeLimit, MAX_HTTP_ANSWER_BYTES } from './answer-size-limit.js';
import { cancellableAnswers } from './cancellable-answers.js';
import { GroupStdioTransport } from './group-stdio-transport.js';
import { isAlive, signalGroup, trackChild, untrackChild } from './live-children.js';
import { McpStartError } from './mcp-start-error.js';
import { isStdioServer, type McpServerSpec } from './mcp-toolset-spec.js';
import { OutputSchemaValidator } from './output-schema-validator.js';
import { StderrLog } from './stderr-log.js';

// Found through the package's own name, not beside this file: the CLI's bundle moves this code.
// The `default` export is dist/index.js, whether the package is a workspace link or installed.
const VERSION = (
  JSON.parse(
    readFileSync(
      path.join(path.dirname(createRequire(import.meta.url).resolve('@agentctl/mcp')), '../package.json'),
      'utf8',
    ),
  ) as { version: string }
).version;

/** What the server says about itself in the handshake. */
export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** A live client, and whether getting it meant restarting a stopped server. */
export interface McpSession {
  client: Client;
  /** Set when the server had stopped and was started again for this call: why it had stopped. */
  restartedAfter?: string;
}

/**
 * One MCP server's client: connects on first use, notices when the server stops, starts it
 * again on the next use, and closes it (killing the child process) on `close()`.
 */
export class McpConnection {
  readonly #toolset: string;
  readonly #spec: McpServerSpec;
  readonly #cwd: string | undefined;
  readonly #startTimeout: number;
  readonly #stderr = new StderrLog();
  #client: Client | undefined;
  #transport: Transport | undefined;
  #connecting: Promise<Client> | undefined;
  #lostBecause: string | undefined;
  #closed = false;
  #restarts = 0;
  #info: McpServerInfo | undefined;
  #stoppedBecause: string | undefined;

  constructor(toolset: string, spec: McpServerSpec, root: string, startTimeout = 30_000) {
    this.#toolset = toolset;
    this.#spec = spec;
    this.#startTimeout = startTimeout;
    this.#cwd = isStdioServer(spec) ? insideRoot(toolset, root, spec.cwd) : undefined;
  }

  /** The server's process id while a stdio server runs. */
  get pid(): number | undefined {
    const transport = this.#transport;
    return transport instanceof StdioClientTransport || transport instanceof GroupStdioTransport
      ? (transport.pid ?? undefined)
      : undefined;
  }

  /** The server's name and version from the last handshake. */
  get serverInfo(): McpServerInfo | undefined {
    return this.#info;
  }

  /** How many times the server was restarted after stopping. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Ms the server has to answer the handshake, and then to list its tools. */
  get startTimeout(): number {
    return this.#startTimeout;
  }

  /** The command line or URL, for messages. */
  get target(): string {
    const spec = this.#spec;
    return isStdioServer(spec) ? [spec.command, ...(spec.args ?? [])].join(' ') : spec.url;
  }

  /** True for a server reached over HTTP, false for one started as a child process. */
  get remote(): boolean {
    return !isStdioServer(this.#spec);
  }

  /** Why the client itself stopped the server, when it did (an answer too large to read). */
  whyStopped(): string | undefined {
    return this.#stoppedBecause;
  }

  /** The last lines the server wrote to stderr. */
  stderrTail(): string {
    return this.#stderr.tail();
  }

  /** A connected client, starting or restarting the server when needed. */
  async session(): Promise<McpSession> {
    if (this.#closed) throw new Error(`MCP toolset "${this.#toolset}" was disposed`);
    // A server that has exited is told by its pipes closing a moment later: a call sent to it
    // meanwhile would fail as if it had stopped during the call, instead of restarting it.
    const transport = this.#transport;
    if (this.#client && transport instanceof GroupStdioTransport && transport.exited) {
      this.#forget(this.#exitReason());
      transport.close().catch(() => {});
    }
    if (this.#client) return { client: this.#client };
    const lost = this.#lostBecause;
    this.#connecting ??= this.#connectRetrying().finally(() => {
      this.#connecting = undefined;
    });
    const client = await this.#connecting;
    if (lost === undefined) return { client };
    if (this.#lostBecause === lost) {
      this.#lostBecause = undefined;
      this.#restarts++;
    }
    return { client, restartedAfter: lost };
  }

  /** Drops a connection that failed mid-call (an HTTP server gone), so the next call reconnects. */
  markLost(reason: string): void {
    const transport = this.#transport;
    if (!this.#client) return;
    this.#forget(reason);
    transport?.close().catch(() => {});
  }

  /** Closes the client and ends the server process; resolves once the process is gone. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting?.catch(() => {});
    const client = this.#client;
    const pid = this.pid;
    this.#client = undefined;
    this.#transport = undefined;
    await client?.close().catch(() => {});
    if (pid !== undefined) await ensureGone(pid);
  }

  // A request on a keep-alive socket the server has just closed fails once with "other side
  // closed" (fetch does not retry a POST); a second attempt gets a fresh socket.
  async #connectRetrying(): Promise<Client> {
    try {
      return await this.#connect();
    } catch (error) {
      if (isStdioServer(this.#spec) || !isSocketFailure(error)) throw error;
      return this.#connect();
    }
  }

  async #connect(): Promise<Client> {
    this.#stderr.clear();
    const transport = this.#makeTransport();
    const client = new Client(
      { name: 'agentctl', version: VERSION },
      { jsonSchemaValidator: new OutputSchemaValidator() },
    );
    this.#stoppedBecause = undefined;
    // The SDK's stdio client reads one message into a bounded buffer; past it, it reports the
    // overflow here and then kills the server, which the caller would otherwise see as a crash.
    client.onerror = (error) => {
      const limit = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(error.message);
      if (limit)
        this.#stoppedBecause = `its answer was larger than ${Number(limit[1]) / 2 ** 20} MB, the most an MCP message read from a server's stdout may be, so agentctl stopped the server`;
    };
    client.onclose = () => {
      if (this.#client === client) this.#forget(this.#exitReason());
    };
    try {
      await client.connect(transport, { timeout: this.#startTimeout });
    } catch (error) {
      const pid = (transport as Partial<StdioClientTransport>).pid ?? undefined;
      await client.close().catch(() => {});
      if (pid) await ensureGone(pid);
      await settle(transport);
      throw this.#startError(error);
    }
    if (this.#closed) {
      await client.close().catch(() => {});
      throw new Error(`MCP toolset "${this.#toolset}" was disposed`);
    }
    const pid = (transport as Partial<StdioClientTransport>).pid;
    if (pid) trackChild(pid);
    this.#client = client;
    this.#transport = transport;
    this.#info = client.getServerVersion();
    return client;
  }

  #forget(reason: string): void {
    const pid = this.pid;
    if (pid !== undefined) untrackChild(pid);
    this.#client = undefined;
    this.#transport = undefined;
    this.#lostBecause = reason;
  }

  #exitReason(): string {
    if (this.#stoppedBecause) return `the server was stopped: ${this.#stoppedBecause}`;
    const tail = this.#stderr.tail();
    return `the server process stopped${tail ? ` (stderr: ${tail.replace(/\s*\n\s*/g, ' | ')})` : ''}`;
  }

  #makeTransport(): Transport {
    const spec = this.#spec;
    if (!isStdioServer(spec)) {
      // A streamed answer cut off for its size leaves its call waiting: only closing the connection
      // ends it (as the stdio client stops a server). An answer sent whole fails its call alone.
      const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: spec.headers ? { headers: spec.headers } : undefined,
        fetch: answerSizeLimit(
          (error) => {
            if (this.#transport !== transport) return;
            this.#stoppedBecause = `${error.message}, so agentctl closed the connection`;
            this.markLost(error.message);
          },
          MAX_HTTP_ANSWER_BYTES,
          cancellableAnswers(),
        ),
      });
      return transport;
    }
    const server = { command: spec.command, args: spec.args, env: spec.env, cwd: this.#cwd };
    // Process groups are POSIX; on Windows the SDK's own transport (and its command lookup) is kept.
    const transport =
      process.platform === 'win32'
        ? new StdioClientTransport({ ...server, stderr: 'pipe' })
        : new GroupStdioTransport(server);
    transport.stderr?.on('data', (chunk: Buffer) => this.#stderr.write(chunk.toString('utf8')));
    return transport;
  }

  #startError(error: unknown): McpStartError {
    // A proxy's error page in front of an HTTP server would be quoted whole; `fetch failed` alone
    // hides what failed (a refused connection, a socket closed), which only its cause says.
    const message = errorText(messageWithCause(error));
    const code = (error as NodeJS.ErrnoException).code;
    const spec = this.#spec;
    let reason: string;
    if (isStdioServer(spec) && code === 'ENOENT')
      reason = /\s/.test(spec.command.trim())
        ? `command "${spec.command}" was not found (it is started without a shell: put the program in \`command\` and each argument in \`args: [...]\`)`
        : `command "${spec.command}" was not found`;
    else if (/timed out/i.test(message))
      reason = `no answer to the MCP handshake within ${this.#startTimeout} ms`;
    else if (/connection closed/i.test(message)) reason = 'the process exited before the MCP handshake';
    else if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0)
      reason = `it answered HTTP ${error.code}${credentialsHint(error.code)}: ${message}`;
    else reason = message;
    return new McpStartError(this.#toolset, this.target, reason, this.#stderr.head(), { cause: error });
  }
}

// A server that refuses the request for want of credentials: where agentctl sends them from.
function credentialsHint(status: number): string {
  return status === 401 || status === 403
    ? " (it wants credentials: send them with the toolset's mcp.headers, e.g. Authorization: Bearer ${TOKEN})"
    : '';
}

function isSocketFailure(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  const inner = cause instanceof Error ? cause.cause : undefined;
  return [cause, inner].some((e) => e instanceof Error && e.message === 'fetch failed');
}

function insideRoot(toolset: string, root: string, cwd: string | undefined): string {
  const resolved = path.resolve(root, cwd ?? '.');
  if (!isInside(path.resolve(root), resolved)) {
    throw new Error(`MCP toolset "${toolset}": cwd "${cwd}" is outside the project folder ${root}`);
  }
  return resolved;
}

// The transports send SIGTERM then SIGKILL without waiting for the last; a caller that was
// promised "no child left" waits here until the pid is really gone.
async function ensureGone(pid: number): Promise<void> {
  for (let i = 0; i < 100 && isAlive(pid); i++) {
    if (i === 50) {
      signalGroup(pid, 'SIGKILL');
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    await sleep(20);
  }
  untrackChild(pid);
}

// stderr arrives through a pipe after the exit is noticed; give it a moment so the error can quote it.
async function settle(transport: Transport): Promise<void> {
  const stderr =
    transport instanceof StdioClientTransport || transport instanceof GroupStdioTransport
      ? (transport.stderr as Readable | null)
      : null;
  if (!stderr || stderr.readableEnded) return;
  const wait = deadline(undefined, 500, () => 'stderr still open');
  try {
    await once(stderr, 'end', { signal: wait.signal }).catch(() => undefined);
  } finally {
    wait.dispose();
  }
}
