import { SseParser } from './sse-parser.js';

/** The server refused the page: no token, or a bad one. */
export class Unauthorized extends Error {
  override name = 'Unauthorized';
}

/** The server did not answer at all (stopped, restarting): nothing was sent to it. */
export class Unreachable extends Error {
  override name = 'Unreachable';
}

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

// Same-origin requests: the page's cookie travels by itself, and a POST carries the page's Origin.
async function call(path: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
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
 * the stream ends, rejects when `signal` stops reading it (the run goes on in the server).
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
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const event of parser.feed(value)) {
      if (signal?.aborted) return;
      onEvent(JSON.parse(event.data));
    }
  }
}
