import { isCredentialName, urlCredentials } from '@agentctl/core';

// A piece of a value that reads as a key or a token: long, and letters mixed with digits, as keys,
// hashes and ids are (a log level, a host, a folder or a port is none of these).
const TOKEN_PIECE = /^(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9._~+-]{16,}$/;
const PIECES = /[\s/?&=#:@,;]+/;

/** What a value is hidden by: the credential pieces of a URL, or the token-like pieces of any value. */
function credentialPieces(value: string): string[] {
  const out = value.split(PIECES).filter((piece) => TOKEN_PIECE.test(piece));
  if (value.includes('://')) out.push(...urlCredentials(value));
  return out;
}

/**
 * Values that must never be shown: API keys, and the credentials among the values interpolated into
 * URLs, headers, environments and command lines.
 */
export class Secrets {
  readonly #values = new Set<string>();

  /**
   * Remembers a `${VAR}` value put where a credential can go (a URL, a header, an environment, a
   * command line) if it is one: its variable, its header, environment name or flag, or the word
   * written before it says so (`hints`), or it holds a key-like or URL credential piece. Any other
   * value (`LOG_LEVEL=debug`, a host, a folder, a port) stays readable: hidden, it would turn every
   * answer and tool result that says the word into `***`.
   */
  offer(value: string, hints: ReadonlyArray<string | undefined>): void {
    if (hints.some((hint) => hint !== undefined && isCredentialName(hint))) {
      this.add(value);
      return;
    }
    const pieces = credentialPieces(value);
    if (pieces.length === 0) return;
    this.add(value);
    for (const piece of pieces) this.add(piece);
  }

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
