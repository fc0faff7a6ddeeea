/** The most bytes one line (one MCP message) read from a server's stdout may have, as the SDK's. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * Splits a server's stdout into lines, each held to `max` bytes: past it, `append` throws with the
 * SDK's own wording (`ReadBuffer exceeded maximum size of N bytes`), which the connection reports.
 * Unlike the SDK's buffer, it gives the line itself, so that a line that is JSON but no JSON-RPC
 * message can still be told apart and answered.
 */
export class LineBuffer {
  readonly #max: number;
  #parts: Buffer[] = [];
  #size = 0;
  #lines: string[] = [];

  constructor(max = MAX_LINE_BYTES) {
    this.#max = max;
  }

  /** Adds a chunk of output; throws when the line under way passes the limit. */
  append(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, end));
      this.#lines.push(Buffer.concat(this.#parts).toString('utf8').replace(/\r$/, ''));
      this.#parts = [];
      this.#size = 0;
      start = end + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
  }

  /** The next whole line, without its line end; null when none is complete yet. */
  readLine(): string | null {
    return this.#lines.shift() ?? null;
  }

  /** Forgets everything buffered. */
  clear(): void {
    this.#parts = [];
    this.#size = 0;
    this.#lines = [];
  }

  #take(part: Buffer): void {
    if (this.#size + part.length > this.#max) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#max} bytes`);
    }
    this.#parts.push(part);
    this.#size += part.length;
  }
}
