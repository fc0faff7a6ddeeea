/**
 * The provider calls one model turn made through its middleware, so each one that failed counts
 * once: a `retry` middleware's attempts are model calls, each failure a failed call. A failure is
 * counted when its attempt settles, or by the turn's own failure when that comes first (a
 * `timeout` middleware gives up before the call it abandoned has unwound); after the turn is
 * over, a late settlement counts nothing.
 */
export class CallAttempts {
  #open = 0;
  #lastFailed = false;
  #over = false;

  /** A provider call starts. */
  start(): void {
    this.#open++;
  }

  /** A provider call answered. */
  succeeded(): void {
    this.#open--;
    this.#lastFailed = false;
  }

  /** A provider call failed; true when its failure is to be counted now. */
  failed(): boolean {
    this.#open--;
    if (this.#over) return false;
    this.#lastFailed = true;
    return true;
  }

  /**
   * The turn failed; true when that failure is still to be counted: a call is still open, or the
   * last one did not fail (a middleware failed on its own, before or after the call).
   */
  turnFailed(): boolean {
    this.#over = true;
    return this.#open > 0 || !this.#lastFailed;
  }
}
