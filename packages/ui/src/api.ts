import { formatDuration } from './format.js';
import { SseParser } from './sse-parser.js';

/** The server refused the page: no token, or a bad one. */
export class Unauthorized extends Error {
  override name = 'Unauthorized';
}

/** The server did not answer at all (stopped, restarting): nothing was sent to it. */
export class Unreachable extends Error {
  override name = 'Unreachable';
}

/** A run's stream that went silent past its heartbeats: the link died without a word (a laptop slept, a proxy dropped it). */
export class Silent extends Error {
  override name = 'Silent';
}

// Heartbeats a run's stream may miss before the page takes the link as dead: one late beat is a
// busy network, three are a connection that is gone.
const SILENT_BEATS = 3;

/** An API call that answered with an error (its JSON `error.message` when it has one). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

// Who hears about a 401 (the page then shows how to sign in).
let onUnauthorized: () => void = () => {};

/** Sets what happens when any call answers 401. */
export function whenUnauthorized(listener: () => void): void {
  onUnauthorized = listener;
}

/**
 * Where the API's `path` (`/project`) is for this page: beside the folder the page is in, so the
 * page works as well behind a proxy that serves agentctl under a path (`https://host/team/ui/`).
 */
export function apiUrl(path: string): string {
  return new URL(`.${path}`, new URL('../', location.href)).href;
}

// Same-origin requests: the page's cookie travels by itself, and a POST carries the page's Origin.
async function call(path: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { credentials: 'same-origin', ...init });
  } catch (error) {
    if (init?.signal?.aborted) throw error;
    throw new Unreachable(`agentctl does not answer (${(error as Error).message}): is it still running?`);
  }
  if (response.status === 401) {
    onUnauthorized();
    throw new Unauthorized('this server needs a token');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as
      | { error?: { message?: string } }
      | undefined;
    throw new ApiError(body?.error?.message ?? `${response.status} ${response.statusText}`, response.status);
  }
  return response;
}

/** GETs a JSON resource of the API. */
export async function getJson<T>(path: string): Promise<T> {
  return (await call(path, { headers: { accept: 'application/json' } })).json() as Promise<T>;
}

/**
 * POSTs `body` and reads the answer as a stream of server-sent events: `onSession` hears the session
 * id the server names (before any event), `onEvent` each parsed `data` as it arrives; resolves when
 * the stream ends, rejects when `signal` stops reading it (the run goes on in the server), and with
 * {@link Silent} when nothing (not even a heartbeat) came for three of the periods the server names.
 */
export async function postStream(
  path: string,
  body: unknown,
  onSession: (id: string) => void,
  onEvent: (data: unknown) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  });
  const session = response.headers.get('x-agentctl-session');
  if (session) onSession(session);
  const parser = new SseParser();
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  // A server that sends no heartbeat (an older agentctl) is waited for as long as it takes.
  const beat = Number(response.headers.get('x-agentctl-heartbeat-ms'));
  const quiet = Number.isFinite(beat) && beat > 0 ? beat * SILENT_BEATS : undefined;
  for (;;) {
    const { done, value } = await (quiet === undefined ? reader.read() : readWithin(reader, quiet));
    if (done) break;
    for (const event of parser.feed(value)) {
      if (signal?.aborted) return;
      onEvent(JSON.parse(event.data));
    }
  }
}

// The next chunk, or Silent after `ms` without one: the read is cancelled, and with it the request.
async function readWithin(
  reader: ReadableStreamDefaultReader<string>,
  ms: number,
): Promise<ReadableStreamReadResult<string>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected first: the cancel settles the pending read too (as an end), which must not win.
      reject(new Silent(`nothing came from agentctl for ${formatDuration(ms)}`));
      void reader.cancel().catch(() => undefined);
    }, ms);
  });
  try {
    return await Promise.race([reader.read(), silent]);
  } finally {
    clearTimeout(timer);
  }
}
