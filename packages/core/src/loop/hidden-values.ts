/**
 * Values an agent never shows, the project's secrets: how to hide them in a whole text, and how
 * much of a streamed text's end could be one of them cut short by the chunk boundary.
 */
export interface HiddenValues {
  /** The text with every value replaced (by `***`, for the project's secrets). */
  scrub(text: string): string;
  /** How many characters at the end of `text` begin a value without finishing it (0 when none). */
  unfinished(text: string): number;
}

/**
 * Hides values in text that arrives in chunks: each chunk's text is given out hidden, less a tail
 * that could be the start of a value split across chunks, kept until the next chunk (or the end)
 * tells.
 */
export class StreamedHiding {
  readonly #values: HiddenValues;
  #held = '';

  constructor(values: HiddenValues) {
    this.#values = values;
  }

  /** What of the text so far can be shown now, hidden. */
  push(chunk: string): string {
    const text = this.#values.scrub(this.#held + chunk);
    const keep = this.#values.unfinished(text);
    this.#held = keep > 0 ? text.slice(text.length - keep) : '';
    return keep > 0 ? text.slice(0, text.length - keep) : text;
  }

  /** The tail kept back, once the text has ended: no value was finished in it. */
  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }
}
