import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';

/** The path the dev UI is served under. */
export const PAGE_PATH = '/ui';

// esbuild's `[name]-[hash]` names: content-addressed, so a browser may keep them for good.
const HASHED = /[.-][A-Z0-9]{8,}\.[a-z0-9]+$/i;

// The page loads its own script and stylesheet and talks to this server only. Should what a model
// or a tool wrote ever reach the page as markup, no inline script, handler or style of it runs,
// and nothing can be sent elsewhere.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dev UI's built files under `/ui/` (`/ui` redirects there): content types by extension,
 * hashed assets cached for a year, everything else (index.html) revalidated on each load, nothing
 * outside `dir` (`..`, encoded separators and doubled slashes are refused), 404 for unknown files.
 */
export function pageRoutes(dir: string): Hono {
  const app = new Hono();
  // Relative: behind a proxy that serves this server under a path, `/ui/` is not where the page is.
  app.get(PAGE_PATH, (c) => c.redirect(`${PAGE_PATH.slice(1)}/`, 302));
  app.use(
    `${PAGE_PATH}/*`,
    serveStatic({
      root: dir,
      rewriteRequestPath: (path) => path.slice(PAGE_PATH.length),
      onFound: (path, c) => {
        c.header('cache-control', HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
        c.header('x-content-type-options', 'nosniff');
        // The page has buttons that approve tool calls: no other site may frame it.
        c.header('x-frame-options', 'DENY');
        c.header('content-security-policy', CONTENT_SECURITY_POLICY);
        c.header('referrer-policy', 'no-referrer');
      },
    }),
  );
  return app;
}
