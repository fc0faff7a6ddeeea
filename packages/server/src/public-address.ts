import type { Context } from 'hono';

/**
 * How the server learns the address its clients reach it at, for what it hands out (an A2A card's
 * `url`): a fixed public URL, or the `X-Forwarded-Proto`/`X-Forwarded-Host` of a proxy the operator
 * trusts. Without either, the request's own scheme and `Host`.
 */
export interface PublicAddress {
  /** The server's base URL as clients see it (`https://agents.example.com/prefix`), as {@link parsePublicUrl} returns it. */
  publicUrl?: string;
  /** Read the first `X-Forwarded-Proto` and `X-Forwarded-Host` of each request (only behind a proxy that sets them). */
  trustProxy?: boolean;
}

/**
 * Checks a public base URL and returns it without a trailing slash; throws saying why for one that
 * is not `http(s)://host[:port][/path]` (a query, a fragment or credentials have no place in it).
 */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${JSON.stringify(text)} is not an http or https URL`);
  if (url.search || url.hash || url.username || url.password)
    throw new Error(
      `${JSON.stringify(text)} has a query, a fragment or credentials; give only scheme, host and path`,
    );
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The base URL (no trailing slash) that clients reach this server at, for the request `c`. */
export function publicBase(c: Context, address: PublicAddress): string {
  if (address.publicUrl !== undefined) return address.publicUrl;
  const own = new URL(c.req.url);
  if (!address.trustProxy) return own.origin;
  // A header that is absent or not a plain scheme or host is passed over, not trusted in part.
  const proto = firstValue(c.req.header('x-forwarded-proto'))?.toLowerCase();
  const scheme = proto === 'http' || proto === 'https' ? proto : own.protocol.slice(0, -1);
  const host = forwardedHost(scheme, firstValue(c.req.header('x-forwarded-host')));
  return host ?? `${scheme}://${own.host}`;
}

// A proxy chain appends its values: the first is what the client asked for.
function firstValue(header: string | undefined): string | undefined {
  const value = header?.split(',')[0]?.trim();
  return value ? value : undefined;
}

// `scheme://host[:port]` when `host` is a host and port only (no path, user or other characters).
function forwardedHost(scheme: string, host: string | undefined): string | undefined {
  if (host === undefined || !/^[A-Za-z0-9.\-[\]:]+$/.test(host)) return undefined;
  try {
    const url = new URL(`${scheme}://${host}`);
    return url.pathname === '/' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
