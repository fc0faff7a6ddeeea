import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, FILESYSTEM } from '../../../../test/support/mcp-servers.js';

/** `node` and the arguments that start server-everything over stdio. */
export const everything = {
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
};

/** `node` and the arguments that start server-filesystem on `folder`. */
export function filesystem(folder: string) {
  return { command: process.execPath, args: [FILESYSTEM, folder] };
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the process is gone (a killed child takes a moment to be reaped). */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

/** A streamable HTTP MCP server on 127.0.0.1, stateful (session ids), with a few tools. */
export interface TestHttpServer {
  url: string;
  /** Authorization headers seen on requests. */
  authHeaders: string[];
  /** The `x-api-key` header of every request that had one, in order. */
  apiKeys: string[];
  /** With `endlessNotifications`: the bytes each GET stream had sent when its client hung up. */
  notificationStreams: number[];
  /** The POST requests whose connection is still open (a call under way, answered or not). */
  openPosts(): number;
  close(): Promise<void>;
}

const TOOLS = [
  {
    name: 'lookup',
    description: 'Looks up a city',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Oslo'] }, detail: { type: 'boolean' } },
      required: ['city'],
    },
  },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'huge',
    description: 'Answers with 11 MB of text',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'gateway',
    description: "Its call meets a proxy's 502 page",
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'hang',
    description: 'Never answers, and ignores its cancellation',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'drop',
    description: 'Its call meets a connection closed without an answer',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'patient',
    description: 'Answers once the calls of huge and gateway have been answered',
    inputSchema: { type: 'object', properties: {} },
  },
];

function mcpServer(othersAnswered: Promise<unknown>): Server {
  const server = new Server({ name: 'test-http', version: '1.2.3' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === 'lookup') {
      const population = args.city === 'Paris' ? 2_100_000 : 710_000;
      return {
        content: [{ type: 'text', text: JSON.stringify({ city: args.city, population }) }],
        structuredContent: { city: args.city, population },
      };
    }
    if (request.params.name === 'huge')
      return { content: [{ type: 'text', text: 'y'.repeat(11 * 2 ** 20) }] };
    if (request.params.name === 'hang') return new Promise<never>(() => {});
    if (request.params.name === 'patient') {
      await othersAnswered;
      return { content: [{ type: 'text', text: 'patient done' }] };
    }
    return { content: [{ type: 'text', text: 'the backend is down' }], isError: true };
  });
  return server;
}

/**
 * Starts the HTTP server; `port` reuses a port (to bring a server back after a stop); `stream`
 * answers calls as SSE streams instead of JSON bodies.
 */
export async function startHttpServer(
  port = 0,
  options: { stream?: boolean; endlessNotifications?: boolean } = {},
): Promise<TestHttpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const authHeaders: string[] = [];
  const apiKeys: string[] = [];
  const notificationStreams: number[] = [];
  // The calls of `huge` and `gateway` answered (or failed) at the HTTP level, which `patient` waits for.
  let answered = 0;
  let othersAnswered: () => void = () => {};
  const others = new Promise<void>((resolve) => {
    othersAnswered = resolve;
  });
  let openPosts = 0;
  const http: HttpServer = createServer(async (req, res) => {
    if (req.method === 'POST') {
      openPosts++;
      res.once('close', () => openPosts--);
    }
    if (req.headers.authorization) authHeaders.push(req.headers.authorization);
    if (typeof req.headers['x-api-key'] === 'string') apiKeys.push(req.headers['x-api-key']);
    if (req.method === 'GET' && options.endlessNotifications) return endlessEvent(res, notificationStreams);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const called = body?.method === 'tools/call' ? body.params?.name : undefined;
    if (called === 'huge' || called === 'gateway')
      res.on('finish', () => {
        if (++answered === 2) othersAnswered();
      });
    if (called === 'drop') {
      req.socket.destroy();
      return;
    }
    if (called === 'gateway') {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === 'string') {
        res.writeHead(404).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32001, message: 'Session not found' },
            id: null,
          }),
        );
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: !options.stream,
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      await mcpServer(others).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    authHeaders,
    apiKeys,
    notificationStreams,
    openPosts: () => openPosts,
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** How long the one event of an endless notification stream gets: far past any limit, still an end. */
export const ENDLESS_EVENT_BYTES = 64 * 2 ** 20;

// Opens a notification stream whose one event never ends (no blank line), as fast as the client
// reads, until ENDLESS_EVENT_BYTES; pushes what was sent to `streams` when the client hangs up.
function endlessEvent(res: ServerResponse, streams: number[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('event: message\ndata: ');
  const chunk = 'x'.repeat(64 * 1024);
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
    streams.push(sent);
  });
  const pump = () => {
    while (!closed && sent < ENDLESS_EVENT_BYTES) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!closed) res.end('\n\n');
  };
  pump();
}

/** Process ids whose parent is this process (Linux /proc); empty where /proc is missing. */
export function childPids(): number[] {
  if (!existsSync('/proc')) return [];
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may contain spaces; fields after it are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

/** Waits until this process has no child process left, and returns those that stayed. */
export async function leftoverChildren(): Promise<number[]> {
  for (let i = 0; i < 100 && childPids().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return childPids();
}
