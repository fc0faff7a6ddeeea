import type { Context, MiddlewareHandler } from 'hono';
import { errorResponse } from './error-response.js';
import { type PublicAddress, publicBase } from './public-address.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True for a host name or address that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * True when the request says it comes from a page of this very server: its `Origin` is its `Host`,
 * or the address `address` says clients reach it at (the page behind a proxy that sends the
 * server's own Host upstream).
 */
export function isSameOrigin(c: Context, address: PublicAddress = {}): boolean {
  const origin = c.req.header('origin');
  if (!origin) return false;
  try {
    const from = new URL(origin);
    return (
      from.host === (c.req.header('host') ?? new URL(c.req.url).host) ||
      from.origin === new URL(publicBase(c, address)).origin
    );
  } catch {
    return false;
  }
}

/** True for a method that may change state. */
export function changesState(c: Context): boolean {
  return !SAFE_METHODS.has(c.req.method);
}

/**
 * Keeps other web sites out, whatever the auth: a request that changes state and carries a browser's
 * `Origin` must come from this server's own page or from an origin allowed by CORS (403 otherwise),
 * since a browser sends a plain-text POST to any address without asking. With `localOnly` (a server
 * without tokens, on loopback) the request must also be addressed to a loopback name, so a site
 * whose name was made to resolve to 127.0.0.1 (DNS rebinding) cannot read or run anything.
 */
export function requestGuard(
  corsOrigins: readonly string[],
  localOnly: boolean,
  address: PublicAddress = {},
): MiddlewareHandler {
  const allowed = new Set(corsOrigins);
  return async (c, next) => {
    if (localOnly) {
      const host = hostName(c.req.header('host'));
      if (host === undefined || !isLoopback(host))
        return errorResponse(
          c,
          403,
          'forbidden',
          'this server answers only requests addressed to 127.0.0.1, localhost or [::1]',
        );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && changesState(c) && !allowed.has(origin) && !isSameOrigin(c, address))
      return errorResponse(c, 403, 'forbidden', `requests from ${origin} may not change anything here`);
    return next();
  };
}

function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return undefined;
  }
}
