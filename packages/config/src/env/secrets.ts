/** Values that must never be shown: interpolated into api keys, headers and environments. */
export class Secrets {
  readonly #values = new Set<string>();

  /** Remembers a value as secret (short values are too common to hide usefully). */
  add(value: string): void {
    if (value.length >= 4) this.#values.add(value);
  }

  /** The text with every secret value replaced by `***`. */
  scrub(text: string): string {
    let out = text;
    for (const value of this.#values) out = out.split(value).join('***');
    return out;
  }

  get size(): number {
    return this.#values.size;
  }
}

/** Whether a spec path holds a secret: api keys, headers, environments. */
export function isSecretPath(path: ReadonlyArray<string | number>): boolean {
  return path.some((part) => part === 'api_key' || part === 'headers' || part === 'env');
}
