import type { ImageContent, ImageMediaType } from '../messages.js';
import { deadline } from '../timing/deadline.js';
import { defineTool, type Tool } from '../tool.js';
import { htmlText } from './html-text.js';

/** Options of {@link httpGet}. */
export interface HttpGetOptions {
  /** Hosts the tool may fetch from: `example.com`, `*.example.com`, or `host:port` to pin a port. None by default. */
  allowedHosts?: readonly string[];
  /** Body bytes returned at most; a longer body is cut with a note. Default 1048576 (1 MiB). */
  maxBytes?: number;
  /** Milliseconds a request may take. Default 10000. */
  timeout?: number;
  /** The name the model sees. Default `http_get`. */
  name?: string;
  /** Return the readable text of HTML pages instead of their markup. Default false. */
  extractText?: boolean;
}

/** What `http_get` returns for a text body. */
export interface HttpGetResult {
  url: string;
  status: number;
  contentType: string;
  body: string;
  truncated?: boolean;
}

const MAX_REDIRECTS = 5;
const IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/**
 * The built-in `http_get` tool: GETs a URL on an allowed host, caps the body, and follows
 * redirects only within the same host.
 *
 * @example
 * const fetchDocs = httpGet({ allowedHosts: ['docs.example.com'], maxBytes: 200_000 });
 */
export function httpGet(options: HttpGetOptions = {}): Tool<{ url: string }, HttpGetResult | ImageContent> {
  const hosts = options.allowedHosts ?? [];
  const allowed = hosts.map(hostMatcher);
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const timeout = options.timeout ?? 10_000;
  return defineTool<{ url: string }, HttpGetResult | ImageContent>({
    name: options.name ?? 'http_get',
    urlArguments: ['url'],
    description: `Fetches a URL with HTTP GET. Allowed hosts: ${hosts.join(', ') || 'none'}.`,
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', description: 'An http or https URL on an allowed host' } },
      required: ['url'],
      additionalProperties: false,
    },
    timeout,
    async execute({ url }, { signal }) {
      let target = parseUrl(url);
      if (!allowed.some((match) => match(target))) {
        throw new Error(`host "${target.host}" is not allowed; allowed hosts: ${hosts.join(', ') || 'none'}`);
      }
      // The fetch's own limit, as `AbortSignal.timeout` says it, and freed with the call.
      const limit = deadline(
        signal,
        timeout,
        () => new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      );
      try {
        for (let redirects = 0; ; redirects++) {
          const response = await fetch(target, { redirect: 'manual', signal: limit.signal });
          const location = response.headers.get('location');
          if (response.status >= 300 && response.status < 400 && location) {
            await response.body?.cancel();
            const next = new URL(location, target);
            if (!/^https?:$/.test(next.protocol)) {
              throw new Error(
                `${target.href} redirects to a ${next.protocol} URL; only http and https redirects are followed`,
              );
            }
            if (next.hostname !== target.hostname) {
              throw new Error(
                `${target.href} redirects to another host (${next.host}); redirects are followed only within one host`,
              );
            }
            // The same name still has to be allowed on the new port, and TLS is never dropped.
            if (
              !allowed.some((match) => match(next)) ||
              (target.protocol === 'https:' && next.protocol === 'http:')
            ) {
              throw new Error(
                `${target.href} redirects to ${next.href}, which is not followed (another port, or from https to http)`,
              );
            }
            if (redirects >= MAX_REDIRECTS)
              throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`);
            target = next;
            continue;
          }
          return await readBody(response, target.href, maxBytes, options.extractText ?? false);
        }
      } finally {
        limit.dispose();
      }
    },
  });
}

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`only http and https URLs are allowed, not ${parsed.protocol}`);
  }
  return parsed;
}

// `host:port` pins the port; a bare host allows any port; `*.` allows any subdomain. A URL's
// `host` leaves out its scheme's default port, which a pinned `example.com:443` names.
function hostMatcher(pattern: string): (url: URL) => boolean {
  const lower = pattern.toLowerCase();
  const withPort = (url: URL) => `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  const part = /:\d+$/.test(lower) ? withPort : (url: URL) => url.hostname;
  if (lower.startsWith('*.')) return (url) => part(url).endsWith(lower.slice(1));
  return (url) => part(url) === lower;
}

async function readBody(
  response: Response,
  url: string,
  maxBytes: number,
  extractText: boolean,
): Promise<HttpGetResult | ImageContent> {
  const contentType = response.headers.get('content-type') ?? '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = Buffer.concat(chunks);
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (IMAGE_TYPES.includes(mediaType) && !truncated && response.ok) {
    return {
      type: 'image',
      mediaType: mediaType as ImageMediaType,
      data: bytes.toString('base64'),
      text: `${url}: HTTP ${response.status}, ${mediaType}, ${size} bytes`,
    };
  }
  const textual = mediaType === '' || /^text\/|json|xml|javascript|x-www-form-urlencoded/.test(mediaType);
  const html = mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
  const body =
    !textual && !html
      ? `[binary body of type ${mediaType}, ${size} bytes, not shown]`
      : extractText && html
        ? htmlText(bytes.toString('utf8'))
        : bytes.toString('utf8');
  const result: HttpGetResult = { url, status: response.status, contentType, body };
  if (truncated) result.truncated = true;
  return result;
}
