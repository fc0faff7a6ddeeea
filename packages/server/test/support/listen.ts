import { request } from 'node:http';
import { type AppOptions, createApp } from '../../src/create-app.js';
import { type RunningServer, startServer } from '../../src/start-server.js';

const running: RunningServer[] = [];

/** The app on a free loopback port, spoken to over real HTTP; stopped by {@link stopAll}. */
export async function listen(options: AppOptions): Promise<string> {
  const { app, tracker } = createApp(options);
  const server = await startServer(app, tracker, '127.0.0.1', 0);
  running.push(server);
  return server.url;
}

/** Shuts the servers {@link listen} started down as SIGTERM does, runs in flight given `graceMs`. */
export async function shutdownAll(graceMs = 0): Promise<void> {
  await Promise.all(running.splice(0).map((s) => s.shutdown(graceMs)));
}

/** Stops every server {@link listen} started; call it from `afterEach`. */
export function stopAll(): Promise<void> {
  return shutdownAll(0);
}

/** What {@link rawGet} received. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET with the path sent exactly as given: `fetch` would resolve `..` before sending it. */
export function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
