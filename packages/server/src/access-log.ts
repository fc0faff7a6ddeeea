import type { MiddlewareHandler } from 'hono';

/** One access-log entry: no headers, no query, no body, so no token and no prompt. */
export interface AccessLogEntry {
  time: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

/** How access-log lines are written: `text` (one readable line) or `json` (one object a line). */
export type LogFormat = 'text' | 'json';

/** Formats one entry as a line (with its newline). */
export function formatAccessLog(entry: AccessLogEntry, format: LogFormat): string {
  if (format === 'json') return `${JSON.stringify(entry)}\n`;
  return `${entry.time} ${entry.method} ${entry.path} ${entry.status} ${entry.durationMs}ms\n`;
}

/** Calls `write` once per request, when its answer has been produced (streams: when headers go out). */
export function accessLog(write: (entry: AccessLogEntry) => void): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      write({
        time: new Date().toISOString(),
        method: c.req.method,
        // The path only: a query string could carry a token or a prompt. As sent, percent-encoded:
        // decoded, a `%0a` would end the line and let a client write log lines of its own.
        path: new URL(c.req.url).pathname,
        status: c.res.status,
        durationMs: Math.round(performance.now() - started),
      });
    }
  };
}
