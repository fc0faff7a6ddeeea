import type { AddressInfo } from 'node:net';
import { sleep } from '@agentctl/core';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { DrainOutcome, RunTracker } from './run-tracker.js';

// How long answers of finished runs may take to leave after the drain.
const LINGER_MS = 2000;

/** A listening server. */
export interface RunningServer {
  /** `http://host:port` as it accepts connections. */
  url: string;
  port: number;
  /**
   * Stops accepting connections, lets runs in flight finish for `graceMs`, cancels the rest
   * (their sessions stay valid) and closes.
   */
  shutdown(graceMs: number, hurry?: AbortSignal): Promise<DrainOutcome>;
}

/** Listens on `host:port` (port 0 picks a free one) and resolves once connections are accepted. */
export function startServer(
  app: Hono,
  tracker: RunTracker,
  host: string,
  port: number,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let stopping = false;
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shown = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shown}:${info.port}`,
        port: info.port,
        async shutdown(graceMs, hurry) {
          stopping = true;
          const closed = new Promise<void>((done) => server.close(() => done()));
          const outcome = await tracker.drain(graceMs, hurry);
          // The runs are over but their answers may still be on the way out: give them a moment,
          // then close what is left (idle keep-alive sockets must not hold the exit).
          const http = server as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
          http.closeIdleConnections?.();
          const stop = new AbortController();
          await Promise.race([closed, sleep(LINGER_MS, stop.signal).catch(() => undefined)]);
          stop.abort();
          http.closeAllConnections?.();
          await closed;
          return outcome;
        },
      });
    });
    // While stopping, a connection whose last answer just left (a run's, an event stream's) is
    // closed as soon as it is idle, rather than when the linger is over.
    server.on('request', (_request, response) =>
      response.once('finish', () => {
        if (stopping)
          setImmediate(() => (server as { closeIdleConnections?: () => void }).closeIdleConnections?.());
      }),
    );
    server.once('error', reject);
  });
}
