import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';

/** How much a streamed answer may hold for a client that does not read, and where a cut is told. */
export interface StreamLimit {
  /** Bytes written but not yet taken by the socket; one more and the connection is closed. */
  maxBytes: number;
  /** Receives one line per connection closed for a reader that stayed behind. */
  log?: (line: string) => void;
  /** Receives what the stream's writer threw (the stream then ends); without it, a stack on stderr. */
  onError?: (error: unknown) => void;
}

type StreamingApi = Parameters<Parameters<typeof stream>[1]>[0];

/** One server-sent event. */
export interface SseMessage {
  event?: string;
  id?: string;
  data: string;
}

/**
 * The writing end of a {@link boundedStream}: `write` never waits for the reader, so a run's
 * events are read as fast as they come and nothing piles up behind a slow client; what the socket
 * has not taken yet is counted, and past the limit the connection is closed and later writes are
 * dropped.
 */
export class BoundedWriter {
  readonly #out: StreamingApi;
  readonly #limit: StreamLimit;
  readonly #cut: () => void;
  readonly #stalled: () => boolean;
  readonly #encoder = new TextEncoder();
  #pending = 0;
  #closed = false;
  #checking = false;

  /**
   * `stalled` tells whether the socket refuses more (its client is not taking what it has); `cut`
   * closes the connection.
   */
  constructor(out: StreamingApi, limit: StreamLimit, stalled: () => boolean, cut: () => void) {
    this.#out = out;
    this.#limit = limit;
    this.#stalled = stalled;
    this.#cut = cut;
  }

  /** True once the connection was closed for a reader that stayed behind (or the client left). */
  get closed(): boolean {
    return this.#closed || this.#out.aborted;
  }

  /** Calls `listener` once the client is gone or cut off. */
  onClose(listener: () => void): void {
    this.#out.onAbort(listener);
  }

  /** Queues `text` for the client; false when it was dropped (the connection is closed). */
  write(text: string): boolean {
    if (this.closed) return false;
    const bytes = this.#encoder.encode(text);
    this.#pending += bytes.length;
    // The socket's backpressure holds this write's promise until the client reads: counting it
    // until then is what bounds the bytes held for this connection.
    void this.#out.write(bytes).finally(() => {
      this.#pending -= bytes.length;
    });
    // Over the limit, the verdict waits for the event loop's next turn: a burst of events (a whole
    // model turn, a large tool result) is written faster than the stream's own plumbing hands it
    // to the socket, and a client that reads must get the chance to. Only a socket that still
    // refuses more then is a client that is not reading.
    if (this.#pending > this.#limit.maxBytes && !this.#checking) {
      this.#checking = true;
      setImmediate(() => {
        this.#checking = false;
        if (this.closed || this.#pending <= this.#limit.maxBytes || !this.#stalled()) return;
        this.#closed = true;
        this.#limit.log?.(
          `closed the connection of a client that stopped reading: ${this.#pending} bytes waited for it (limit ${this.#limit.maxBytes}, --max-stream-buffer)`,
        );
        this.#cut();
      });
    }
    return true;
  }

  /** Queues one server-sent event. */
  event(message: SseMessage): boolean {
    const lines = message.data.split(/\r\n|\r|\n/).map((line) => `data: ${line}`);
    if (message.event !== undefined) lines.unshift(`event: ${message.event}`);
    if (message.id !== undefined) lines.push(`id: ${message.id}`);
    return this.write(`${lines.join('\n')}\n\n`);
  }
}

/**
 * Answers with a stream (`text/event-stream` unless `contentType` says otherwise) written through
 * a {@link BoundedWriter}. A client that stops reading is cut off once `limit.maxBytes` wait for
 * it: the socket is reset (what it held is dropped at once), as if the client had left, and the
 * line saying so goes to `limit.log` with the request's method and path.
 */
export function boundedStream(
  c: Context,
  limit: StreamLimit,
  body: (out: BoundedWriter) => Promise<void>,
  contentType = 'text/event-stream',
): Response {
  c.header('content-type', contentType);
  c.header('cache-control', 'no-cache');
  const where = `${c.req.method} ${c.req.path}`;
  const log = limit.log && ((line: string) => limit.log?.(`agentctl serve: ${where}: ${line}\n`));
  return stream(
    c,
    async (out) => {
      // Without a node socket (an app called in process) there is no client to fall behind.
      const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
      const stalled = () => outgoing?.writableNeedDrain === true;
      const cut = () => {
        // A reset, not a close: what the kernel holds for the client is dropped at once, rather than
        // waiting for a reader that does not read.
        const socket = outgoing?.socket;
        if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket?.destroy();
        out.abort();
      };
      await body(new BoundedWriter(out, { ...limit, log }, stalled, cut));
    },
    limit.onError && (async (error) => limit.onError?.(error)),
  );
}
