import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './http-error.js';

/**
 * Bearer-token auth: with tokens set, every request but `GET /health` needs
 * `Authorization: Bearer <one of them>` (401 otherwise). With none, everything is open: the
 * command line only allows that on a loopback host.
 */
export function bearerAuth(tokens: readonly string[]): MiddlewareHandler {
  const expected = tokens.map((t) => Buffer.from(t));
  return async (c, next) => {
    if (expected.length === 0 || (c.req.method === 'GET' && c.req.path === '/health')) return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const given = match ? Buffer.from(match[1].trim()) : undefined;
    if (given && expected.some((t) => t.length === given.length && timingSafeEqual(t, given))) return next();
    c.header('www-authenticate', 'Bearer');
    return c.json(errorBody('unauthorized', 'a bearer token is required (Authorization: Bearer ...)'), 401);
  };
}
