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
  /**
   * Milliseconds between `: heartbeat` comments on an event stream (clients skip comments), so a
   * proxy keeps a quiet run's connection open and a client can tell a quiet run from a dead link;
   * said in the `x-agentctl-heartbeat-ms` header. None: no heartbeat.
   */
  heartbeatMs?: number;
}

/** The header naming the heartbeat of an event stream, in milliseconds. */
export const HEARTBEAT_HEADER = 'x-agentctl-heartbeat-ms';

type StreamingApi = Parameters<Parameters<typeof stream>[1]>[0];

// The most handed to the stream at once: what the socket's buffer may hold beyond its own limit.
const CHUNK_BYTES = 64 * 1024;

/** What a {@link BoundedWriter} asks of the socket under its stream. */
export interface SocketProbe {
  /** True while the socket's buffer is full (its client has not taken what it holds). */
  stalled(): boolean;
  /** Settles once the socket takes more (or closes). */
  drained(): Promise<void>;
}

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
  readonly #socket: SocketProbe;
  // Bytes written and not yet handed to the stream, sent a chunk at a time when the socket takes
  // more: a web stream keeps its queued writes in an array it shifts, so thousands of small writes
  // queued at once would cost the square of their number, and one large write would land whole in
  // the socket's own buffer, out of this count.
  #queue: Buffer[] = [];
  #flowing = false;
  #flowed: Promise<void> = Promise.resolve();
  #pending = 0;
  #closed = false;
  #checking = false;

  /** `socket` says when the socket refuses more (its client is not taking what it has); `cut` closes the connection. */
  constructor(out: StreamingApi, limit: StreamLimit, socket: SocketProbe, cut: () => void) {
    this.#out = out;
    this.#limit = limit;
    this.#socket = socket;
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
    const bytes = Buffer.from(text);
    this.#pending += bytes.length;
    this.#queue.push(bytes);
    if (!this.#flowing) {
      this.#flowing = true;
      this.#flowed = this.#flow();
    }
    // Over the limit, the verdict waits for the event loop's next turn: a burst of events (a whole
    // model turn, a large tool result) is written faster than the stream's own plumbing hands it
    // to the socket, and a client that reads must get the chance to. Only a socket that still
    // refuses more then is a client that is not reading.
    if (this.#pending > this.#limit.maxBytes && !this.#checking) {
      this.#checking = true;
      setImmediate(() => {
        this.#checking = false;
        if (this.closed || this.#pending <= this.#limit.maxBytes || !this.#socket.stalled()) return;
        this.#closed = true;
        this.#limit.log?.(
          `closed the connection of a client that stopped reading: ${this.#pending} bytes waited for it (limit ${this.#limit.maxBytes}, --max-stream-buffer)`,
        );
        this.#cut();
      });
    }
    return true;
  }

  // One write in the stream at a time: the socket's backpressure holds it until the client reads,
  // and what is written meanwhile waits in the queue, counted in `#pending`.
  async #flow(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.closed) {
        // The socket's own buffer is full: what comes next waits here, counted, until it drains.
        if (this.#socket.stalled()) {
          await this.#socket.drained();
          continue;
        }
        const all = this.#queue.length === 1 ? this.#queue[0] : Buffer.concat(this.#queue);
        const chunk = all.subarray(0, CHUNK_BYTES);
        this.#queue = chunk.length < all.length ? [all.subarray(chunk.length)] : [];
        await this.#out.write(chunk);
        this.#pending -= chunk.length;
      }
    } finally {
      // Said in the same turn as the last look at the queue: a later write starts a new flow.
      this.#queue = [];
      this.#flowing = false;
    }
  }

  /** Settles once everything written has been handed to the stream (or the connection is closed). */
  async drained(): Promise<void> {
    while (this.#flowing) await this.#flowed;
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
  const beat = contentType === 'text/event-stream' ? limit.heartbeatMs : undefined;
  if (beat !== undefined) c.header(HEARTBEAT_HEADER, String(beat));
  const where = `${c.req.method} ${c.req.path}`;
  const log = limit.log && ((line: string) => limit.log?.(`agentctl serve: ${where}: ${line}\n`));
  return stream(
    c,
    async (out) => {
      // Without a node socket (an app called in process) there is no client to fall behind.
      const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
      const socket: SocketProbe = {
        stalled: () => outgoing?.writableNeedDrain === true,
        drained: () =>
          new Promise<void>((resolve) => {
            if (!outgoing?.writableNeedDrain) return resolve();
            const done = () => {
              outgoing.off('drain', done);
              outgoing.off('close', done);
              resolve();
            };
            outgoing.once('drain', done);
            outgoing.once('close', done);
          }),
      };
      const cut = () => {
        // A reset, not a close: what the kernel holds for the client is dropped at once, rather than
        // waiting for a reader that does not read.
        const socket = outgoing?.socket;
        if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket?.destroy();
        out.abort();
      };
      const writer = new BoundedWriter(out, { ...limit, log }, socket, cut);
      // Written between whole events (each event is one write), from the first byte to the last.
      const heartbeat =
        beat === undefined ? undefined : setInterval(() => writer.write(': heartbeat\n\n'), beat);
      try {
        // The stream closes when this returns: what is still queued must be in it first.
        await body(writer);
        await writer.drained();
      } finally {
        clearInterval(heartbeat);
      }
    },
    limit.onError && (async (error) => limit.onError?.(error)),
  );
}
