/** One block of a `text/event-stream`: an event, or a comment (a heartbeat). */
export interface LiveEvent {
  event?: string;
  data: string;
  comment?: string;
}

/** A live `text/event-stream` being read: what arrived so far, and a way to wait for more. */
export interface LiveEvents {
  /** Every block so far, in order. */
  readonly events: LiveEvent[];
  /** The first block from `from` on (default: the start) that `match` accepts; rejects after `timeoutMs`. */
  waitFor(
    match: (event: LiveEvent) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<LiveEvent>;
  /** How the stream stopped: the server ended it (`end`), or the connection broke or was cancelled (`error`). */
  readonly finished: Promise<'end' | 'error'>;
  /** Stops reading and lets go of the connection. */
  close(): Promise<void>;
}

/** Reads `response` (a `text/event-stream`) in the background as its blocks arrive. */
export function liveEvents(response: Response): LiveEvents {
  const events: LiveEvent[] = [];
  const waiters = new Set<() => void>();
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let ended = false;
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const finished = (async (): Promise<'end' | 'error'> => {
    let buffer = '';
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return 'end';
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          events.push(parseBlock(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
        }
        wake();
      }
    } catch {
      return 'error';
    } finally {
      ended = true;
      wake();
    }
  })();
  return {
    events,
    finished,
    waitFor(match, { from = 0, timeoutMs = 15_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(match);
          if (found || ended) {
            waiters.delete(check);
            clearTimeout(timer);
            if (found) resolve(found);
            else reject(new Error(`the stream ended first; it sent:\n${JSON.stringify(events, null, 2)}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `nothing matched within ${timeoutMs} ms; the stream sent:\n${JSON.stringify(events, null, 2)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}

function parseBlock(block: string): LiveEvent {
  const item: LiveEvent = { data: '' };
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) item.comment = line.slice(1).trim();
    else if (line.startsWith('event:')) item.event = line.slice(6).trim();
    else if (line.startsWith('data:')) item.data += line.slice(5).replace(/^ /, '');
  }
  return item;
}
