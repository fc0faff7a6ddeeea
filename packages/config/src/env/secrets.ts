/** Values that must never be shown: interpolated into api keys, URLs, headers, environments and command lines. */
export class Secrets {
  readonly #values = new Set<string>();

  /** Remembers a value as secret (short values are too common to hide usefully). */
  add(value: string): void {
    if (value.length >= 4) {
      this.#values.add(value);
      // A secret in a URL or header may travel encoded; hide that spelling too.
      const encoded = encodeURIComponent(value);
      if (encoded !== value) this.#values.add(encoded);
    }
  }

  /** The text with every secret value replaced by `***`. */
  scrub(text: string): string {
    let out = text;
    for (const value of this.#values) out = out.split(value).join('***');
    return out;
  }

  /** How many characters at the end of `text` begin a secret value without finishing it. */
  unfinished(text: string): number {
    let longest = 0;
    for (const value of this.#values) {
      for (let k = Math.min(value.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(value.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  }

  get size(): number {
    return this.#values.size;
  }
}

/** A JSON-like value with `scrub` applied to every string in it (keys included). */
export function scrubDeep<T>(value: T, scrub: (text: string) => string): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), scrubDeep(v, scrub)])) as T;
  }
  return value;
}

/**
 * Whether a spec path holds a secret: api keys, URLs, headers, environments, and the command line
 * of a program (a command tool's `argv`, an MCP server's `args`), where keys are often passed and
 * from where error messages (a server that did not start) would print them.
 */
export function isSecretPath(path: ReadonlyArray<string | number>): boolean {
  return path.some(
    (part, i) =>
      part === 'api_key' ||
      part === 'headers' ||
      part === 'env' ||
      part === 'url' ||
      part === 'base_url' ||
      (part === 'argv' && path[i - 1] === 'command') ||
      (part === 'args' && path[i - 1] === 'mcp'),
  );
}
