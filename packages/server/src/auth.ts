import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { errorResponse } from './error-response.js';
import { PAGE_PATH } from './page-routes.js';
import type { PublicAddress } from './public-address.js';
import { changesState, isSameOrigin } from './request-guard.js';

/** The cookie that carries the token for the dev UI's page. */
export const TOKEN_COOKIE = 'agentctl_token';

// Said to a browser that opened the page without a token; no token, URL or path is echoed.
const LOCKED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentctl: sign in</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 4em auto">
<h1>This agentctl server needs a token</h1>
<p>Open the address <code>agentctl dev --ui</code> or <code>agentctl serve --ui</code> printed when it
started: it ends in <code>/ui/?token=…</code> and signs this browser in.</p>
<p>The token is the value of <code>AGENTCTL_SERVE_TOKEN</code> (or of the variable named by
<code>--token-env</code>).</p>
</body></html>
`;

/**
 * Token auth: with tokens set, every request but `GET /health` needs `Authorization: Bearer <one of
 * them>` or the page's cookie. `GET /ui/...?token=T` with a good T sets that cookie (HttpOnly,
 * SameSite=Strict) and redirects to the same path without the token; a request the cookie
 * authenticates that changes state must come from the same origin (403 otherwise). Without a
 * token: 401, as JSON for the API and as a short HTML page under /ui. With no tokens, everything is
 * open: the command line only allows that on a loopback host.
 */
export function tokenAuth(tokens: readonly string[], address: PublicAddress = {}): MiddlewareHandler {
  // Compared as digests, which all have one length: comparing the tokens themselves would first
  // tell a guess of the wrong length from one of the right length, by how soon it is refused.
  const expected = tokens.map(digest);
  const valid = (text: string | undefined) => {
    if (!text) return false;
    const given = digest(text);
    let found = false;
    for (const t of expected) found = timingSafeEqual(t, given) || found;
    return found;
  };
  return async (c, next) => {
    if (expected.length === 0 || (c.req.method === 'GET' && c.req.path === '/health')) return next();
    const page = c.req.path === PAGE_PATH || c.req.path.startsWith(`${PAGE_PATH}/`);
    const offered = page && c.req.method === 'GET' ? c.req.query('token') : undefined;
    if (offered !== undefined && valid(offered)) return signIn(c, offered);
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '');
    if (bearer && valid(bearer[1].trim())) return next();
    if (offered === undefined && valid(getCookie(c, TOKEN_COOKIE))) {
      if (changesState(c) && !isSameOrigin(c, address))
        return errorResponse(
          c,
          403,
          'forbidden',
          'a request authenticated by cookie must come from the page (same Origin)',
        );
      return next();
    }
    c.header('www-authenticate', 'Bearer');
    if (page) return c.html(LOCKED_PAGE, 401);
    return errorResponse(c, 401, 'unauthorized', 'a bearer token is required (Authorization: Bearer ...)');
  };
}

// The token leaves the address bar (and history) at once: the cookie carries it from here on.
function signIn(c: Context, token: string): Response {
  const url = new URL(c.req.url);
  setCookie(c, TOKEN_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: url.protocol === 'https:',
  });
  url.searchParams.delete('token');
  c.header('referrer-policy', 'no-referrer');
  c.header('cache-control', 'no-store');
  // Relative, as the page's own requests are: behind a proxy that serves this server under a path,
  // the path this server sees is not the one the browser is on.
  const file = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  return c.redirect(`${file || './'}${url.search}`, 302);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
