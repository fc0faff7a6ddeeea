import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { guardChildren, spawnSupervised } from '@agentctl/core';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCResultResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { LineBuffer } from './line-buffer.js';
import { signalGroup, trackChild, untrackChild } from './live-children.js';
import { killMarked, MARKER_VARIABLE, markEnded, markRunning, newMarker } from './marked-processes.js';
import type { McpStdioServer } from './mcp-toolset-spec.js';

// How long the server gets after stdin closes, then after SIGTERM, before the next step.
const GRACE_MS = 2000;

/**
 * The SDK's stdio client transport, with the server in a process group of its own: a server
 * started through a wrapper (`npx`, `npm exec`, `sh -c`, `uv run`) is a grandchild the SDK's
 * transport never signals, and one that does not exit when its stdin closes outlived agentctl.
 * Closing ends stdin, then sends SIGTERM and at last SIGKILL to the whole group, and whatever the
 * server left in its group when it exited is killed with it. When agentctl is killed without a
 * chance to do any of that (SIGKILL, the OOM killer), a watcher in the group ends it. The
 * environment is the SDK's small default plus `env`, as with the SDK's transport, plus a marker
 * that finds (on Linux) the processes the server started outside its group, ended with it too.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, readable before {@link start} so nothing it writes early is lost. */
  readonly stderr = new PassThrough();
  readonly #server: McpStdioServer;
  readonly #buffer = new LineBuffer();
  readonly #marker = newMarker();
  #process: ChildProcess | undefined;

  constructor(server: McpStdioServer) {
    this.#server = server;
  }

  /** The server's process id (the leader of its group) while it runs. */
  get pid(): number | null {
    return this.#process?.pid ?? null;
  }

  /** True once the server process has exited, which is told before its pipes are closed. */
  get exited(): boolean {
    const child = this.#process;
    return child === undefined || child.exitCode !== null || child.signalCode !== null;
  }

  /** Starts the server; rejects when it cannot be spawned (`code` ENOENT for a missing command). */
  start(): Promise<void> {
    if (this.#process) throw new Error('the MCP server was already started');
    // Before the spawn: a signal between it and trackChild must not leave the server running.
    guardChildren();
    const { command, args = [], cwd } = this.#server;
    const env = { ...getDefaultEnvironment(), ...this.#server.env, [MARKER_VARIABLE]: this.#marker };
    let child: ChildProcess;
    try {
      child = spawnSupervised(command, args, { cwd, env, marker: `${MARKER_VARIABLE}=${this.#marker}` });
    } catch (error) {
      this.onerror?.(error as Error);
      return Promise.reject(error);
    }
    markRunning(this.#marker);
    return new Promise((resolve, reject) => {
      this.#process = child;
      // Tracked from the start (its pid is known as soon as it was forked): a signal during a slow
      // handshake (npx fetching), or before 'spawn' is told, must end it too.
      if (child.pid !== undefined) trackChild(child.pid);
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      // What the server started and left behind goes with it: in its group, and out of it.
      child.on('exit', () => {
        if (child.pid === undefined) return;
        signalGroup(child.pid, 'SIGKILL');
        killMarked(this.#marker);
        markEnded(this.#marker);
        untrackChild(child.pid);
      });
      child.on('close', () => {
        if (this.#process === child) this.#process = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  /** Writes one message to the server's stdin. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the server: stdin closed, then SIGTERM, then SIGKILL to its whole group. */
  async close(): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    this.#buffer.clear();
    if (!child || child.pid === undefined) return;
    const pid = child.pid;
    const closed = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    const within = (ms: number) =>
      Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(r, ms, false).unref())]);
    child.stdin?.end();
    if (!(await within(GRACE_MS))) {
      signalGroup(pid, 'SIGTERM');
      if (!(await within(GRACE_MS))) signalGroup(pid, 'SIGKILL');
    }
    signalGroup(pid, 'SIGKILL');
    killMarked(this.#marker);
  }

  #read(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      this.close().catch(() => {});
      return;
    }
    for (let line = this.#buffer.readLine(); line !== null; line = this.#buffer.readLine()) {
      const message = this.#message(line);
      if (message) this.onmessage?.(message);
    }
  }

  // A line that is no JSON (a banner, a log line) is skipped. One that is a JSON-RPC answer in a
  // form JSON-RPC does not allow (`"result": null`) would leave its request waiting out its whole
  // timeout for an answer already given: it is turned into an error answer to that request.
  #message(line: string): JSONRPCMessage | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return undefined;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.onerror?.(parsed.error);
    // Only what claims to be an answer: a JSON log line that happens to have an `id` is no answer.
    const answer = value as { jsonrpc?: unknown; id?: unknown } | null;
    const id = answer?.id;
    if (typeof answer !== 'object' || answer === null || answer.jsonrpc !== '2.0') return undefined;
    if ('method' in answer || !('result' in answer || 'error' in answer)) return undefined;
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    // Checked again as the one kind of answer it claims to be, whose issues say more than the union's.
    const kind = 'error' in answer ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
    const issues = kind.safeParse(value).error?.issues;
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: ErrorCode.InternalError,
        message: 'the answer is no JSON-RPC message',
        data: { issues: issues ?? parsed.error.issues },
      },
    };
  }
}
