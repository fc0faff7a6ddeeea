import { isContextOverflow } from './context-overflow.js';
import { redactSecrets } from './credential-values.js';
import { errorText, messageWithCause } from './error-text.js';
import { AgentError } from './errors.js';
import type { ModelRetry } from './model.js';
import { backoffDelay, type RetryPolicy } from './timing/backoff.js';
import { deadline } from './timing/deadline.js';
import { sleep } from './timing/sleep.js';
import type { TokenUsage } from './usage.js';

/** True for HTTP statuses where the same request may succeed later: 408, 409, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * True when an error (or one of its causes) is a dropped or refused connection. A body cut in
 * the middle surfaces from fetch as a plain `TypeError: terminated` with no status, and the SDKs
 * wrap refused connections in their own `APIConnectionError`; both count.
 */
export function isConnectionError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    if (typeof current !== 'object') return false;
    const { name, message, code } = current as { name?: unknown; message?: unknown; code?: unknown };
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (name === 'TypeError' && (message === 'terminated' || message === 'fetch failed')) return true;
    if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return true;
    if (name === 'SocketError' || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** What a failure means for a retry. */
export interface FailureInfo {
  retryable: boolean;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The server's wait hint (`Retry-After` or `retry-after-ms`), in ms. */
  retryAfterMs?: number;
}

/**
 * Classifies anything a provider call threw: an {@link AgentError} keeps its own verdict; an SDK
 * error with a `status` is judged by {@link isRetryableStatus} and its `Retry-After` header;
 * connection errors are retryable; aborts and everything else are not.
 */
export function classifyFailure(error: unknown): FailureInfo {
  if (error instanceof AgentError) {
    const status = Number(error.context.status);
    const hint = Number(error.context.retryAfterMs);
    return {
      retryable: error.retryable,
      ...(Number.isFinite(status) && status > 0 ? { status } : {}),
      ...(Number.isFinite(hint) && hint >= 0 ? { retryAfterMs: hint } : {}),
    };
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status > 0) {
    const retryAfterMs = retryAfterFromHeaders((error as { headers?: unknown }).headers);
    return {
      retryable: isRetryableStatus(status),
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  return { retryable: isConnectionError(error) };
}

/** Reads `retry-after-ms` or `Retry-After` from a `Headers` object or a plain header record. */
export function retryAfterFromHeaders(headers: unknown, now = Date.now()): number | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const get = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
    return entry === undefined ? undefined : String(entry[1]);
  };
  const millis = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(millis) && millis >= 0) return millis;
  return parseRetryAfter(get('retry-after'), now);
}

/** Parses a `Retry-After` value, delay-seconds or an HTTP date, into ms from `now`. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How many times a model's `timeout` a server may keep a call alive (pings, SSE comments) without
 * sending any of the answer: a server that works for long is not silent, but one that only ever
 * pings would otherwise hold the call until the run's own limit, and a run has none by default.
 */
export const STALL_FACTOR = 10;

/** What one attempt of {@link retryStream} gets: its number and a signal that ends it. */
export interface AttemptControl {
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborts when the caller's signal aborts or the attempt went idle for too long: pass it to the HTTP request. */
  signal: AbortSignal;
  /** Call on every piece of the answer (an event of the stream) to restart both timers. */
  touch(): void;
  /** Call on bytes that are no part of the answer (a keep-alive ping or comment): restarts the idle timer only. */
  alive(): void;
  /** True when this attempt was aborted because the server went silent, or only kept alive, not by the caller. */
  readonly timedOut: boolean;
  /** True when the server was not silent but sent nothing of the answer for `stallTimeoutMs`. */
  readonly stalled: boolean;
}

/** Options of {@link retryStream}. */
export interface RetryStreamOptions<T = unknown> {
  policy: RetryPolicy;
  /** The caller's signal: aborts the attempt in flight and any wait. */
  signal?: AbortSignal;
  /** Ms without progress (before the response or between chunks) after which an attempt is aborted. */
  idleTimeoutMs?: number;
  /** Ms without a piece of the answer, keep-alives or not, after which an attempt is aborted. */
  stallTimeoutMs?: number;
  /** Told before each wait, for logging. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** An item to yield before each wait, telling the consumer an attempt failed and is made again. */
  retryItem?: (info: { attempt: number; delayMs: number; error: unknown }) => T;
  /** Source of randomness for the jitter. */
  random?: () => number;
}

/**
 * Runs a streaming request with retries. An attempt that fails before it yielded anything is
 * retried when {@link classifyFailure} says so, after {@link backoffDelay}; once an item was yielded
 * the failure is final, because the consumer has already seen part of the answer.
 */
export async function* retryStream<T>(
  open: (control: AttemptControl) => AsyncIterable<T>,
  options: RetryStreamOptions<T>,
): AsyncGenerator<T> {
  for (let attempt = 1; ; attempt++) {
    const control = attemptControl(attempt, options.signal, options.idleTimeoutMs, options.stallTimeoutMs);
    let yielded = false;
    try {
      for await (const item of open(control)) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      control.dispose();
      const info = classifyFailure(error);
      if (yielded || !info.retryable || options.signal?.aborted) throw error;
      if (attempt >= options.policy.maxAttempts) throw attempt > 1 ? gaveUp(error, attempt) : error;
      const delayMs = backoffDelay(options.policy, attempt, info.retryAfterMs, options.random);
      if (delayMs === undefined) throw tooLongToWait(error, info.retryAfterMs, options.policy.maxDelayMs);
      options.onRetry?.({ attempt, delayMs, error });
      if (options.retryItem) yield options.retryItem({ attempt, delayMs, error });
      await sleep(delayMs, options.signal, 'waiting to retry');
    } finally {
      control.dispose();
    }
  }
}

// Without the count, a 429 after three attempts reads as one that was never retried.
function gaveUp(error: unknown, attempts: number): unknown {
  if (!(error instanceof AgentError)) return error;
  error.message += ` (after ${attempts} attempts)`;
  error.context.attempts = attempts;
  return error;
}

// The server asked for a longer wait than the policy allows: the error says so, or the missing
// retries would look like a bug.
function tooLongToWait(error: unknown, askedMs: number | undefined, maxMs: number): unknown {
  if (!(error instanceof AgentError) || askedMs === undefined) return error;
  error.message += ` (the server asked to wait ${seconds(askedMs)}, longer than retry.max_delay ${seconds(maxMs)}: not retried)`;
  return error;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function attemptControl(
  attempt: number,
  outer: AbortSignal | undefined,
  idleMs: number | undefined,
  stallMs: number | undefined,
): AttemptControl & { dispose(): void } {
  const idle = deadline(outer, idleMs !== undefined && idleMs > 0 ? idleMs : undefined, () => {
    return new AgentError(`no response for ${idleMs} ms`, 'TIMEOUT', { retryable: true });
  });
  // Inside the idle deadline: its signal aborts with the caller's, the silence's or its own.
  const stall =
    stallMs !== undefined && stallMs > 0
      ? deadline(idle.signal, stallMs, () => {
          return new AgentError(`nothing of the answer for ${stallMs} ms`, 'TIMEOUT', { retryable: true });
        })
      : idle;
  return {
    attempt,
    signal: stall.signal,
    touch: () => {
      idle.restart();
      if (stall !== idle) stall.restart();
    },
    alive: () => idle.restart(),
    get timedOut() {
      return idle.expired || stall.expired;
    },
    get stalled() {
      return stall !== idle && stall.expired && !idle.expired;
    },
    dispose: () => {
      if (stall !== idle) stall.dispose();
      idle.dispose();
    },
  };
}

/** What {@link providerFailure} needs to know about the call that failed. */
export interface FailureContext {
  /** The provider's name, such as `openai`. */
  provider: string;
  model: string;
  /** True once part of the answer was streamed to the caller: a failure then is final. */
  committed: boolean;
  /** The caller cancelled. */
  aborted?: boolean;
  /** The attempt was aborted for going idle; `idleTimeoutMs` says after how long. */
  timedOut?: boolean;
  idleTimeoutMs?: number;
  /** The attempt was aborted, with `timedOut`, for only keep-alives and no answer in `stallTimeoutMs`. */
  stalled?: boolean;
  stallTimeoutMs?: number;
  /** The API's own error message, when the SDK error carries one. */
  apiMessage?: string;
  /**
   * The answer ended before its last event (retried like a dropped connection): `empty` when the
   * server's 200 held no stream event at all, `not a stream` when its content type says why (a
   * web page, a JSON body from a server that does not stream), which no retry changes.
   */
  incomplete?: boolean | 'empty' | 'not a stream';
  /** The provider knows better, e.g. an `overloaded_error` event inside a stream, which has no status. */
  transient?: boolean;
  /** Strings that must never appear in the message, such as the API key. */
  secrets?: readonly string[];
  /** Where the API key comes from (a variable, a YAML field): named when the server refuses it. */
  keySource?: string;
  /** The server refused the key with another status than 401 (Gemini answers 400 `API_KEY_INVALID`). */
  keyRefused?: boolean;
  /**
   * The account is out of quota or credit, not rate-limited for a moment: what the API said so
   * with (OpenAI's `insufficient_quota`, a Gemini daily quota). Final, whatever the status.
   */
  quotaExhausted?: string;
  /** Tokens the server reported before the failure: they were spent and still count. */
  usage?: TokenUsage;
}

/** What a provider's error says about itself, as the SDKs expose it (all optional). */
export interface ProviderErrorFacts {
  status?: number;
  /** The API's error type, such as `overloaded_error` or `invalid_request_error`. */
  type?: string;
  /** The API's error code, such as `rate_limit_exceeded`. */
  code?: string;
  /** The request id to quote to the provider's support. */
  requestId?: string;
}

/**
 * Reads the facts of an SDK error: the HTTP status, the API's error `type` and `code` (from the
 * error body, flat as OpenAI sends it or nested under `error` as Anthropic does, also for an
 * `error` event inside a stream), and the request id (`requestID`, or the `x-request-id` /
 * `request-id` header).
 */
export function providerErrorFacts(error: unknown): ProviderErrorFacts {
  const facts: ProviderErrorFacts = {};
  if (!error || typeof error !== 'object') return facts;
  const e = error as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  if (typeof e.status === 'number' && e.status > 0) facts.status = e.status;
  const body = (e.error && typeof e.error === 'object' ? e.error : {}) as Record<string, unknown>;
  const inner = (body.error && typeof body.error === 'object' ? body.error : body) as Record<string, unknown>;
  const type = text(inner.type) ?? text(e.type);
  if (type && type !== 'error') facts.type = type;
  const code = text(inner.code) ?? (typeof e.code === 'string' ? e.code : undefined);
  if (code) facts.code = code;
  const headers = e.headers;
  const header = (name: string) =>
    headers && typeof (headers as Headers).get === 'function'
      ? ((headers as Headers).get(name) ?? undefined)
      : text((headers as Record<string, unknown> | undefined)?.[name]);
  const requestId = text(e.requestID) ?? text(e.request_id) ?? header('x-request-id') ?? header('request-id');
  if (requestId) facts.requestId = requestId;
  return facts;
}

/**
 * Turns anything a provider call threw into the {@link AgentError} the runtime expects: `ABORTED`
 * on cancel; `MODEL_ERROR` (final) for a stream that broke after output began; otherwise
 * `TIMEOUT` or `PROVIDER_ERROR` naming provider, model, status and the API's message, retryable
 * per {@link classifyFailure}, with `context.status` and `context.retryAfterMs` when known.
 */
export function providerFailure(error: unknown, ctx: FailureContext): AgentError {
  const where = `${ctx.provider} model ${ctx.model}`;
  const clean = (text: string) => redactSecrets(text, ctx.secrets);
  const baseContext: Record<string, unknown> = {
    provider: ctx.provider,
    model: ctx.model,
    ...providerErrorFacts(error),
    ...(ctx.usage ? { usage: ctx.usage } : {}),
  };
  if (ctx.aborted)
    return new AgentError(`${where}: the request was cancelled`, 'ABORTED', { context: baseContext });
  if (error instanceof AgentError && !ctx.timedOut) {
    // Already judged (a retried attempt's error, or ours): keep it, adding the spent tokens.
    if (ctx.usage && error.context.usage === undefined) error.context.usage = ctx.usage;
    return error;
  }
  const info = classifyFailure(error);
  const detail = errorText(
    clean(
      ctx.apiMessage ??
        // Named, so a model that thinks in silence for longer is given a longer one.
        (ctx.timedOut && ctx.stalled
          ? `only keep-alives, nothing of the answer, for ${ctx.stallTimeoutMs} ms: ${STALL_FACTOR} times the model's timeout`
          : ctx.timedOut
            ? `no data for ${ctx.idleTimeoutMs} ms, the model's timeout`
            : messageWithCause(error)),
    ),
    info.status,
  );
  if (ctx.committed) {
    return new AgentError(
      `${where}: the stream broke after the answer had begun (${detail})`,
      'MODEL_ERROR',
      {
        cause: error,
        context: { ...baseContext, ...(info.status ? { status: info.status } : {}), retryable: false },
      },
    );
  }
  if (ctx.timedOut && ctx.stalled) {
    // Already ten timeouts long: retried like a silent attempt, the default retries made it thirty.
    // Another model of a chain may answer, as for a quota (see isFallbackError).
    return new AgentError(
      `${where}: timed out, ${detail} (not retried: a server that only kept the call alive that long would likely do it again; raise the model's timeout to wait longer)`,
      'TIMEOUT',
      {
        cause: error,
        retryable: false,
        context: { ...baseContext, timeoutMs: ctx.stallTimeoutMs, stalled: true, retryable: false },
      },
    );
  }
  if (ctx.timedOut) {
    return new AgentError(`${where}: timed out, ${detail}`, 'TIMEOUT', {
      cause: error,
      retryable: true,
      context: {
        ...baseContext,
        timeoutMs: ctx.idleTimeoutMs,
        retryable: true,
      },
    });
  }
  if (ctx.quotaExhausted) {
    // Same 429 as a rate limit, but no wait fixes it: retrying would only spend the retry budget.
    const failed = info.status === undefined ? 'failed' : `failed with HTTP ${info.status}`;
    return new AgentError(
      `${where} ${failed}: ${detail} (out of quota: ${ctx.quotaExhausted}; the account's quota or billing is exhausted, not a passing rate limit, so it is not retried)`,
      'PROVIDER_ERROR',
      {
        cause: error,
        retryable: false,
        context: {
          ...baseContext,
          ...(info.status === undefined ? {} : { status: info.status }),
          quotaExhausted: true,
          retryable: false,
        },
      },
    );
  }
  if (info.status !== undefined) {
    // A 404 is a wrong model id or a base URL without the API's path (`/v1`) far more often than not.
    const hint =
      info.status === 404
        ? ' (check the model id and base_url)'
        : (info.status === 401 || ctx.keyRefused) && ctx.keySource
          ? ` (the API key refused is the one in ${ctx.keySource})`
          : isContextOverflow(baseContext, info.status, ctx.apiMessage)
            ? " (the conversation no longer fits the model's context window: the agent's `max_history` bounds what is sent, and the session keeps all of it)"
            : '';
    return new AgentError(`${where} failed with HTTP ${info.status}: ${detail}${hint}`, 'PROVIDER_ERROR', {
      cause: error,
      retryable: info.retryable,
      context: {
        ...baseContext,
        status: info.status,
        ...(info.retryAfterMs === undefined ? {} : { retryAfterMs: info.retryAfterMs }),
        retryable: info.retryable,
      },
    });
  }
  const connection =
    info.retryable ||
    (Boolean(ctx.incomplete) && ctx.incomplete !== 'not a stream') ||
    ctx.transient === true;
  // Retried alike, but said apart: a server that answered is not a connection that failed.
  const what =
    ctx.incomplete === 'empty' || ctx.incomplete === 'not a stream'
      ? 'no answer'
      : ctx.incomplete
        ? 'incomplete answer'
        : ctx.transient
          ? 'the server failed during the answer'
          : connection
            ? 'connection failed'
            : error instanceof SyntaxError
              ? 'the server sent data that is not JSON'
              : 'request failed';
  return new AgentError(`${where}: ${what} (${detail})`, 'PROVIDER_ERROR', {
    cause: error,
    retryable: connection,
    context: { ...baseContext, retryable: connection },
  });
}

/** What {@link providerStream} needs: who is asked, how to retry, and how to make one attempt. */
export interface ProviderStreamOptions<T> {
  provider: string;
  /** The model asked for; a request without one fails with a clear error. */
  model: string | undefined;
  signal?: AbortSignal;
  policy: RetryPolicy;
  idleTimeoutMs?: number;
  stallTimeoutMs?: number;
  /** Strings never to show in an error (the API key), read when an error is made. */
  secrets(): readonly string[];
  /** Prepares the request for `model` (connecting the client) and returns one attempt of it. */
  prepare(model: string): (control: AttemptControl) => AsyncIterable<T>;
}

/**
 * The stream of a network provider: the request retried per {@link retryStream}, each retry told
 * by a `retry` event (a failed attempt is a model call), and any failure, before or after
 * retries, turned by {@link providerFailure} into one final `error` event. Tokens that retried
 * attempts reported before failing are added to the final `done` response's usage (or the final
 * error's `context.usage`): they were spent.
 */
export async function* providerStream<T>(
  options: ProviderStreamOptions<T>,
): AsyncGenerator<T | { type: 'error'; error: AgentError } | ({ type: 'retry' } & ModelRetry)> {
  const { provider, model, signal } = options;
  // Tokens the attempts that failed and were retried had spent: billed, so counted in the end.
  let spent: TokenUsage | undefined;
  const onRetry = ({ error }: { error: unknown }) => {
    const usage = error instanceof AgentError ? (error.context.usage as TokenUsage | undefined) : undefined;
    if (usage) spent = plusTokens(spent, usage);
  };
  try {
    if (!model)
      throw new AgentError(`${provider}: no model given and no default model configured`, 'CONFIG_ERROR');
    const attempt = options.prepare(model);
    const attempts = retryStream<T | ({ type: 'retry' } & ModelRetry)>(attempt, {
      policy: options.policy,
      signal,
      idleTimeoutMs: options.idleTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      onRetry,
      retryItem: ({ attempt, delayMs, error }) => ({
        type: 'retry',
        attempt,
        delayMs,
        error: error instanceof Error ? error : new Error(String(error)),
      }),
    });
    for await (const item of attempts) yield spent ? withSpent(item, spent) : item;
  } catch (error) {
    const failure = providerFailure(error, {
      provider,
      model: model ?? '(none)',
      committed: false,
      aborted: signal?.aborted,
      secrets: options.secrets(),
    });
    if (spent) failure.context.usage = plusTokens(spent, failure.context.usage as TokenUsage | undefined);
    yield { type: 'error', error: failure };
  }
}

// A final `done` item's usage with the retried attempts' tokens added; any other item as it is.
function withSpent<T>(item: T, spent: TokenUsage): T {
  const done = item as { type?: unknown; response?: { usage?: TokenUsage } };
  if (done.type !== 'done' || !done.response?.usage) return item;
  return { ...done, response: { ...done.response, usage: plusTokens(spent, done.response.usage) } } as T;
}

// A sum with one unknown part is unknown too: it stays marked unreported.
function plusTokens(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage {
  return {
    inputTokens: (a?.inputTokens ?? 0) + (b?.inputTokens ?? 0),
    outputTokens: (a?.outputTokens ?? 0) + (b?.outputTokens ?? 0),
    cacheReadTokens: (a?.cacheReadTokens ?? 0) + (b?.cacheReadTokens ?? 0),
    cacheWriteTokens: (a?.cacheWriteTokens ?? 0) + (b?.cacheWriteTokens ?? 0),
    ...(a?.unreported || b?.unreported ? { unreported: true } : {}),
  };
}
