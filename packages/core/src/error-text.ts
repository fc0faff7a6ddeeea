/** The longest server text an error message quotes. */
export const ERROR_TEXT_LIMIT = 300;

const HTML = /<(?:!doctype|html|head|body)\b/i;

/**
 * A server's error text as a message may quote it: an HTML page (a proxy's or gateway's error
 * page, a base URL that points at a website) reduced to its title or first heading, tags and runs
 * of white space removed, a status the SDK put in front dropped, and the rest cut to
 * {@link ERROR_TEXT_LIMIT} characters, so a 5 KB page never fills the terminal or the session.
 *
 * @example
 * errorText('500 <html><head><title>502 Bad Gateway</title></head>...</html>', 500); // 'HTML page: 502 Bad Gateway'
 */
export function errorText(text: string, status?: number): string {
  let out =
    status !== undefined && text.startsWith(`${status} `) ? text.slice(String(status).length + 1) : text;
  const page = out.search(HTML);
  // A page has closing tags too: a message that merely quotes `<html>` is left as it is.
  if (page >= 0 && /<\/(?:html|head|body|title)>/i.test(out)) {
    // What comes before the page is the SDK's own wording (`Error POSTing to endpoint:`): kept.
    const before = out.slice(0, page).trim();
    const heading = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(out) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(out);
    const words = (heading?.[1] ?? out.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')).replace(
      /<[^>]*>/g,
      ' ',
    );
    out = `${before ? `${before} ` : ''}HTML page: ${words.replace(/\s+/g, ' ').trim() || '(no text)'}`;
  }
  return out.length <= ERROR_TEXT_LIMIT
    ? out
    : `${out.slice(0, ERROR_TEXT_LIMIT)}… (${out.length} characters)`;
}

/**
 * The message of an error with what its innermost cause says, when that adds something: SDKs
 * report a refused connection, an unknown host or a TLS mismatch as `Connection error.` or
 * `fetch failed`, and only the cause at the end of the chain says which.
 *
 * @example
 * messageWithCause(sdkError); // 'Connection error: getaddrinfo ENOTFOUND api.opnai.com'
 */
export function messageWithCause(error: unknown): string {
  const top = error instanceof Error ? error.message || error.name : String(error);
  let root: unknown;
  for (let current = (error as { cause?: unknown } | null)?.cause, depth = 0; current && depth < 8; depth++) {
    if (current instanceof Error) root = current;
    current = (current as { cause?: unknown }).cause;
  }
  if (!(root instanceof Error)) return top;
  const code = (root as NodeJS.ErrnoException).code;
  // OpenSSL's messages are long lines of internals; their code says it (ERR_SSL_WRONG_VERSION_NUMBER).
  const said = root.message.length > 120 && typeof code === 'string' ? code : root.message || code;
  return !said || top.includes(said) ? top : `${top.replace(/\.$/, '')}: ${said}`;
}
