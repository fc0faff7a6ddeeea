import { UsageError } from '@agentctl/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { a2aRoutes } from './a2a-routes.js';
import type { TaskRetention } from './a2a-task-store.js';
import { type AccessLogEntry, accessLog } from './access-log.js';
import type { AgentSource } from './agent-source.js';
import { tokenAuth } from './auth.js';
import { HEARTBEAT_HEADER } from './bounded-stream.js';
import { errorResponse } from './error-response.js';
import { ErrorShield } from './error-shield.js';
import { HttpError } from './http-error.js';
import { type InvokeContext, shieldedHttpError } from './invoke.js';
import { nativeRoutes } from './native-routes.js';
import { openaiRoutes } from './openai-routes.js';
import { OPENAPI_DOCUMENT } from './openapi.js';
import { pageRoutes } from './page-routes.js';
import { DEFAULT_HEARTBEAT_MS, projectRoutes } from './project-routes.js';
import { parsePublicUrl } from './public-address.js';
import { queueAnswer } from './queue-answer.js';
import { queuedRoutes } from './queued-routes.js';
import type { QueuedRuns } from './queued-runs.js';
import { requestGuard } from './request-guard.js';
import { responsesRoutes } from './responses-routes.js';
import { RunTracker } from './run-tracker.js';
import { isStoreUnreachable } from './to-http-error.js';

/** Options of {@link createApp}. */
export interface AppOptions {
  source: AgentSource;
  /** Bearer tokens; empty means no auth (the command line allows that on loopback only). */
  tokens?: readonly string[];
  /** Runs in flight at once; one more is answered 429. Default 64. */
  maxRuns?: number;
  /**
   * Streams of queued runs' events (`GET /runs/{id}/events`) open at once; one more is answered
   * 429. Each holds a connection to the queue's Redis. Default 256.
   */
  maxFollowers?: number;
  /** Milliseconds a run may take before it ends as TIMEOUT. Default 5 minutes. */
  runTimeoutMs?: number;
  /** Largest request body in bytes (413 beyond). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Origins allowed by CORS; none means no CORS headers at all. A browser request from any other origin may not change state (403). */
  corsOrigins?: readonly string[];
  /**
   * Answer only requests addressed to a loopback name (403 otherwise): what keeps a server without
   * tokens safe from DNS rebinding. The command line sets it when it serves without a token.
   */
  localOnly?: boolean;
  /** Receives one entry per request. */
  log?: (entry: AccessLogEntry) => void;
  /** The run queue: enables `async: true` runs and `GET /runs/{id}/events`, and adds depth to `/health`. */
  queue?: QueuedRuns;
  /**
   * Receives one line per failure whose text clients do not read (an internal error, a store's),
   * with the ref the client got; and one per connection closed for a client that did not read.
   */
  errorLog?: (line: string) => void;
  /** Send run errors' own texts to clients, the server's internals included (local debugging). Default false. */
  exposeErrors?: boolean;
  /** Bytes of a streamed answer held for a client that does not read before its connection is closed. Default 1 MiB. */
  maxStreamBufferBytes?: number;
  /** A folder of built page files (@agentctl/ui's dist) to serve under `/ui/`; none means no page. */
  pageDir?: string;
  /**
   * Milliseconds between `: heartbeat` comments on every event stream (`GET /project/events`, run
   * streams of the native API, the OpenAI-compatible endpoints and A2A, queued runs' events). Default 15 s.
   */
  heartbeatMs?: number;
  /** How long and how many ended A2A tasks stay for `tasks/get`. Default one hour, 10,000. */
  a2aTasks?: TaskRetention;
  /**
   * The server's base URL as its clients reach it (`https://agents.example.com`), for the A2A
   * cards' `url` and a queued run's `events` address; checked by {@link parsePublicUrl}. Default:
   * each request's own scheme and host (and a queued run's `events` relative).
   */
  publicUrl?: string;
  /**
   * Take the A2A cards' (and queued runs' `events`) scheme and host from a request's `X-Forwarded-Proto`/`X-Forwarded-Host`
   * (only behind a proxy that sets them: a client could send any). `publicUrl` wins over it.
   */
  trustProxy?: boolean;
}

/** A hono app serving the native API, the OpenAI-compatible endpoint, A2A and the dev UI, with its run tracker. */
export interface ServerApp {
  app: Hono;
  tracker: RunTracker;
}

/**
 * Builds the HTTP app over an agent source: access log, CORS, auth, body cap, then the routes.
 *
 * @example
 * const { app } = createApp({ source, tokens: ['secret'] });
 * serve({ fetch: app.fetch, port: 8787 });
 */
export function createApp(options: AppOptions): ServerApp {
  const tracker = new RunTracker(options.maxRuns ?? 64);
  const shield = new ErrorShield({ expose: options.exposeErrors, log: options.errorLog });
  const address = {
    publicUrl: options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl),
    trustProxy: options.trustProxy,
  };
  const context: InvokeContext = {
    address,
    source: options.source,
    tracker,
    runTimeoutMs: options.runTimeoutMs ?? 5 * 60_000,
    queue: options.queue,
    shield,
    streamLimit: {
      maxBytes: options.maxStreamBufferBytes ?? 1024 * 1024,
      log: options.errorLog,
      // A stream that fails once begun (the queue lost mid-follow) can only end: the operator learns why.
      onError: (error) => void shield.internal(error, 'stream failed'),
      heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    },
  };
  const app = new Hono();
  if (options.log) app.use(accessLog(options.log));
  if (options.corsOrigins?.length)
    app.use(
      cors({ origin: [...options.corsOrigins], exposeHeaders: ['x-agentctl-session', HEARTBEAT_HEADER] }),
    );
  app.use(requestGuard(options.corsOrigins ?? [], options.localOnly ?? false, address));
  app.use(tokenAuth(options.tokens ?? [], address));
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  app.use(
    bodyLimit({
      maxSize: maxBytes,
      onError: (c) => {
        const message = `the body is larger than ${maxBytes} bytes`;
        // The rest of the body is never read: the connection cannot carry another request, and a
        // client that is told so opens a new one instead of failing its next request on this one.
        c.header('connection', 'close');
        // An A2A client reads a JSON-RPC error, as for any other request it cannot be served.
        if (c.req.method === 'POST' && /^\/a2a\/[^/]+\/?$/.test(c.req.path))
          return c.json(
            { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${message}` } },
            413,
          );
        return errorResponse(c, 413, 'body_too_large', message);
      },
    }),
  );
  app.get('/health', async (c) => {
    if (!options.queue) return c.json({ status: 'ok' });
    try {
      return c.json({ status: 'ok', queue: await queueAnswer(context.shield, options.queue.depth()) });
    } catch (error) {
      // `/health` answers without a token: the reason carries a ref, never what Redis said.
      return c.json({ status: 'degraded', queue: { error: (error as Error).message } }, 503);
    }
  });
  app.get('/openapi.json', (c) => c.json(OPENAPI_DOCUMENT));
  app.route('/', projectRoutes(options.source, tracker.closing, options.heartbeatMs));
  if (options.pageDir) app.route('/', pageRoutes(options.pageDir));
  app.route('/', queuedRoutes(context, options.maxFollowers ?? 256));
  app.route('/', nativeRoutes(context));
  app.route('/', openaiRoutes(context));
  app.route('/', responsesRoutes(context));
  app.route('/', a2aRoutes(context, (options.tokens ?? []).length > 0, options.a2aTasks, address));
  app.notFound((c) => errorResponse(c, 404, 'not_found', `no route ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    // A caller's mistake that core finds (a malformed session id in a path) is a 400 like any other;
    // a store that cannot be reached, a 503.
    const known =
      error instanceof UsageError || isStoreUnreachable(error)
        ? shieldedHttpError(context.shield, error)
        : error;
    if (known instanceof HttpError) {
      for (const [name, value] of Object.entries(known.headers)) c.header(name, value);
      return errorResponse(c, known.status, known.code, known.message, known.param);
    }
    // A client that hung up mid-request (its body cut short) is not a fault of this server: no
    // one reads the answer, and the operator's log says 499, not an internal error.
    if (clientGone(c.req.raw, error))
      return errorResponse(c, 499, 'client_closed_request', 'the client closed the connection');
    return errorResponse(c, 500, 'internal', `internal error (ref ${context.shield.internal(error)})`);
  });
  return { app, tracker };
}

// The request's connection ended before it was read: node's `aborted` (ECONNRESET) on the body.
function clientGone(request: Request, error: unknown): boolean {
  return request.signal.aborted || (error as { code?: unknown } | undefined)?.code === 'ECONNRESET';
}
