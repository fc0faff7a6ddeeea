import { sleep } from '@agentctl/core';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AgentSource } from './agent-source.js';
import { HttpError } from './http-error.js';
import type { ProjectStatus } from './project-view.js';

/** How often `/project/events` sends a comment when nothing happens, so proxies keep it open. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * The project as the dev UI reads it: `GET /project` (the agent graph), `GET /project/status`
 * (the reload state) and `GET /project/events` (that state as SSE, at connect and at each change).
 */
export function projectRoutes(
  source: AgentSource,
  /** Ends every event stream: the server is shutting down. */
  closing: AbortSignal,
  heartbeatMs = DEFAULT_HEARTBEAT_MS,
): Hono {
  const app = new Hono();
  const noProject = () => new HttpError(404, 'no_project', 'this server was not started on a project');

  app.get('/project', (c) => {
    if (!source.project) throw noProject();
    return c.json(source.project());
  });

  app.get('/project/status', (c) => {
    if (!source.status) throw noProject();
    return c.json(source.status());
  });

  app.get('/project/events', (c) => {
    const { status, onStatus } = source;
    if (!status || !onStatus) throw noProject();
    return streamSSE(c, async (sse) => {
      const closed = new AbortController();
      sse.onAbort(() => closed.abort());
      const end = () => closed.abort();
      closing.addEventListener('abort', end, { once: true });
      // Writes go out one at a time, in the order the changes happened; a failed one ends the stream.
      let writing = Promise.resolve();
      const queue = (write: () => Promise<void>) => {
        writing = writing.then(write).catch(() => closed.abort());
      };
      const send = (s: ProjectStatus) =>
        queue(() => sse.writeSSE({ event: 'status', data: JSON.stringify(s) }));
      const stop = onStatus.call(source, send);
      try {
        if (closing.aborted) return;
        send(status.call(source));
        while (!closed.signal.aborted) {
          await sleep(heartbeatMs, closed.signal).catch(() => undefined);
          if (!closed.signal.aborted) queue(async () => void (await sse.write(': heartbeat\n\n')));
        }
      } finally {
        closing.removeEventListener('abort', end);
        stop();
      }
    });
  });

  return app;
}
