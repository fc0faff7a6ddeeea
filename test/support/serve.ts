import { type LongRunning, startLongRunning } from './long-running.js';

/** A running `agentctl serve` process. */
export interface ServeProcess extends LongRunning {
  url: string;
}

/** Running servers, stopped by {@link stopServers}. */
const running: ServeProcess[] = [];

/**
 * Starts the real `agentctl serve --port 0 ...` in `cwd` and resolves once it prints
 * `listening on URL`; rejects with its stderr when it exits first.
 */
export async function startServe(
  cwd: string,
  args: readonly string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<ServeProcess> {
  const started = await startLongRunning(
    cwd,
    ['serve', '--port', '0', ...args],
    env,
    /listening on (http:\/\/\S+)\n/,
  );
  const server = { ...started, url: started.match[1] };
  running.push(server);
  return server;
}

/** Stops every server {@link startServe} started; call it from `afterAll`. */
export async function stopServers(): Promise<void> {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
}

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads a whole `text/event-stream` body into its events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event.event = line.slice(6).trim();
      else if (line.startsWith('id:')) event.id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}
