const HEAD_CHARS = 2000;
const HEAD_LINES = 20;
const TAIL_CHARS = 2000;

/**
 * What a server wrote to stderr, bounded: the first lines (why it failed to start) and the
 * latest ones (why it crashed). Reading the pipe also keeps a chatty server from blocking on it.
 */
export class StderrLog {
  #head = '';
  #tail = '';

  /** Appends a chunk of output. */
  write(chunk: string): void {
    if (this.#head.length < HEAD_CHARS) this.#head += chunk.slice(0, HEAD_CHARS - this.#head.length);
    this.#tail = (this.#tail + chunk).slice(-TAIL_CHARS);
  }

  /** The first lines written. */
  head(): string {
    return this.#head.split('\n').slice(0, HEAD_LINES).join('\n');
  }

  /** The last lines written. */
  tail(lines = 10): string {
    return this.#tail
      .split('\n')
      .slice(-lines - 1)
      .join('\n')
      .trim();
  }

  /** Forgets everything, for a restarted server. */
  clear(): void {
    this.#head = '';
    this.#tail = '';
  }
}
