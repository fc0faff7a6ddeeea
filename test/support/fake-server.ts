import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One server-sent event: `data` objects are sent as JSON, strings as they are. */
export interface SseEvent {
  event?: string;
  data: unknown;
  /** Sent instead as an SSE comment line (`: text`), the keep-alive some servers send while they work. */
  comment?: string;
}

/** What the fake server answers to one request. */
export type FakeReply =
  | {
      status: number;
      json?: unknown;
      headers?: Record<
        string,
        string
      > /** Sent as is instead of `json` (set the content-type in `headers`). */;
      body?: string;
    }
  | {
      sse: SseEvent[];
      /** Destroy the socket after this many events, the way a dropped connection looks. */
      cutAfter?: number;
      /** Send this many events, then go silent without closing. */
      hangAfter?: number;
      /** Milliseconds between events. */
      delayMs?: number;
    }
  | { hang: true };

/** An SSE reply of these events (`extra`: cut, hang or pace the stream). */
export function sse(
  events: SseEvent[],
  extra: { cutAfter?: number; hangAfter?: number; delayMs?: number } = {},
): FakeReply {
  return { sse: events, ...extra };
}

/** A request the fake server received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in assertions
  body: any;
  /** `Date.now()` when the request arrived. */
  time: number;
  /** Settles when the connection of this request closed, for whatever reason. */
  closed: Promise<void>;
  /** True when the client went away before the server finished its answer. */
  abortedByClient: boolean;
}

/** A local HTTP server on 127.0.0.1 that answers from a queue of scripted replies, speaking any vendor's wire (the replies say what). */
export interface FakeServer {
  /** Base URL, such as `http://127.0.0.1:41234/v1`. */
  url: string;
  requests: ReceivedRequest[];
  /** Queue more replies. */
  reply(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

/** Starts a {@link FakeServer}; requests beyond the queue get a 500 naming the problem. */
export async function startFakeServer(replies: FakeReply[] = [], basePath = '/v1'): Promise<FakeServer> {
  const queue = [...replies];
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let resolveClosed!: () => void;
      const record: ReceivedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
        time: Date.now(),
        closed: new Promise<void>((resolve) => {
          resolveClosed = resolve;
        }),
        abortedByClient: false,
      };
      res.on('close', () => {
        if (!res.writableFinished) record.abortedByClient = true;
        resolveClosed();
      });
      requests.push(record);
      void answer(res, queue.shift());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    reply: (...more) => queue.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(res: ServerResponse, reply: FakeReply | undefined): Promise<void> {
  if (reply === undefined) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'fake server: no reply scripted for this request' } }));
    return;
  }
  if ('hang' in reply) return;
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body ?? JSON.stringify(reply.json ?? {}));
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (let i = 0; i < reply.sse.length; i++) {
    if (reply.cutAfter !== undefined && i >= reply.cutAfter) {
      // Let the events already written reach the client first, or the cut would swallow them.
      await new Promise((resolve) => setTimeout(resolve, 30));
      res.socket?.destroy();
      return;
    }
    if (reply.hangAfter !== undefined && i >= reply.hangAfter) return;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    const { event, data, comment } = reply.sse[i];
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    res.write(
      comment !== undefined ? `: ${comment}\n\n` : `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`,
    );
  }
  res.end();
}
