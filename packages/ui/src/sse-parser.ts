/** One server-sent event: its `event:` name (`message` when absent) and its joined `data:` lines. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * Splits a `text/event-stream` body, fed in chunks as they arrive, into events: a POST response
 * cannot be read by EventSource, so the chat reads its run's stream through fetch and this.
 * Comments (`: heartbeat`) and `id:`/`retry:` fields are skipped; CR, LF and CRLF all end lines.
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];

  /** Adds a chunk of text; returns the events it completed. */
  feed(chunk: string): ServerSentEvent[] {
    this.#buffer += chunk;
    const done: ServerSentEvent[] = [];
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      // A lone CR at the end may be the first half of a CRLF still on its way.
      if (end < 0 || (end === this.#buffer.length - 1 && this.#buffer[end] === '\r')) break;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
      const event = this.#line(line);
      if (event) done.push(event);
    }
    return done;
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return undefined;
      }
      const event = { event: this.#event || 'message', data: this.#data.join('\n') };
      this.#event = '';
      this.#data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    return undefined;
  }
}
