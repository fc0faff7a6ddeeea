import { AsyncLocalStorage } from 'node:async_hooks';

// Node's fetch (undici) keeps its dispatcher under this symbol once it has been used.
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
  dispatch(options: Record<string, unknown>, handler: unknown): boolean;
}

// undici cuts a request after 300 s without headers or body data: a `timeout` of 10m for a model
// that reasons in silence would end at 5 minutes as a dropped connection, and be retried, at
// full price each time. The idle timer of the retry policy is the one limit, as `@google/genai`
// itself does it.
const untimedDispatcher = {
  dispatch(options: Record<string, unknown>, handler: unknown): boolean {
    let global = (globalThis as Record<symbol, Dispatcher | undefined>)[GLOBAL_DISPATCHER];
    if (!global) {
      new Headers(); // makes Node load undici, which sets its dispatcher
      global = (globalThis as Record<symbol, Dispatcher | undefined>)[GLOBAL_DISPATCHER];
    }
    if (!global) throw new Error("Node's fetch dispatcher is not available");
    return global.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler);
  },
};

/** What {@link providerFetch} tells the attempt whose SDK call it serves (see {@link reportingProgress}). */
export interface FetchWatch {
  /** Called at each chunk of the response body as it is read. */
  progress(): void;
  /** The `content-type` of the last response, set when it arrives. */
  contentType?: string;
}

// The watch of the attempt whose SDK call is running.
const watches = new AsyncLocalStorage<FetchWatch>();

/**
 * Runs `open` (an SDK call that starts a request) so that {@link providerFetch} tells `watch` the
 * response's content type and each chunk of its body as it is read. The SDKs swallow keep-alive
 * events (Anthropic's `ping`), so an idle timer fed by their stream items alone took a live
 * server that pings while it thinks for a silent one; and they parse a web page or a JSON body as
 * an empty event stream, without saying what came instead.
 *
 * @example
 * const stream = await reportingProgress({ progress: () => control.touch() }, () => client.messages.create(body));
 */
export function reportingProgress<T>(watch: FetchWatch, open: () => T): T {
  return watches.run(watch, open);
}

/**
 * The `fetch` of every network provider's SDK. It follows no redirect: followed, a redirect sends
 * the request, prompt and credentials wherever its `Location` says (fetch drops only
 * `Authorization` on the way to another host, so Gemini's `x-goog-api-key` or a gateway's header
 * went along), and a 301 or 302 turns the POST into a GET that fails with a puzzling 404 or 405;
 * the redirect is answered instead with an error body in the shape every SDK reads
 * (`{ error: { message } }`), naming where the server points. It leaves the silence of a call to
 * the model's `timeout` (undici's own 300 s limits are off), and reports each chunk of the body
 * to the caller of {@link reportingProgress}.
 *
 * @example
 * new OpenAI({ apiKey, fetch: providerFetch });
 */
export async function providerFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const watch = watches.getStore();
  const response = await fetch(input, {
    ...init,
    redirect: 'manual',
    dispatcher: untimedDispatcher,
  } as unknown as RequestInit);
  if (response.status >= 300 && response.status <= 399) return redirected(response, input);
  if (!watch) return response;
  watch.contentType = response.headers.get('content-type') ?? undefined;
  return response.body ? reporting(response, response.body, () => watch.progress()) : response;
}

// The same response, its body calling `onProgress` at each chunk as it is read.
function reporting(response: Response, body: ReadableStream<Uint8Array>, onProgress: () => void): Response {
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onProgress();
        controller.enqueue(chunk);
      },
    }),
  );
  const copy = new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // The SDKs log the URL in their debug lines.
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

async function redirected(response: Response, input: string | URL | Request): Promise<Response> {
  const from = input instanceof Request ? input.url : String(input);
  const location = response.headers.get('location');
  await response.body?.cancel().catch(() => undefined);
  const to = location ? new URL(location, from).href : undefined;
  const message = to
    ? `the server redirects to ${to}, which agentctl does not follow (the request and its key would go there): set base_url to the address it moved to`
    : 'the server answered with a redirect, which agentctl does not follow: check base_url';
  return new Response(JSON.stringify({ error: { message } }), {
    status: response.status,
    statusText: response.statusText,
    headers: { 'content-type': 'application/json' },
  });
}
