import { AgentError } from '../errors.js';
import type { Middleware } from './types.js';

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 3. */
  maxAttempts?: number;
  /** Delay before the first retry in ms; doubles each time. Default 500. */
  initialDelay?: number;
  /** Upper bound of one delay in ms. Default 30000. */
  maxDelay?: number;
  /** Which actions to retry. Default: model calls only. */
  on?: ReadonlyArray<'model_call' | 'tool_call'>;
}

/**
 * Retries model calls (and optionally tool calls) that failed with a retryable error, with
 * exponential backoff and full jitter. Errors that a retry cannot fix are passed straight on.
 *
 * @example
 * createAgent({ provider, middleware: [retry({ maxAttempts: 5 })] });
 */
export function retry(options: RetryOptions = {}): Middleware {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const initialDelay = options.initialDelay ?? 500;
  const maxDelay = options.maxDelay ?? 30_000;
  const on = new Set<string>(options.on ?? ['model_call']);
  return async function retryMiddleware(action, next) {
    if (!on.has(action.type)) return next();
    for (let attempt = 1; ; attempt++) {
      try {
        return await next();
      } catch (error) {
        const retryable = error instanceof AgentError ? error.retryable : false;
        if (!retryable || attempt >= maxAttempts) throw error;
        const hinted = error instanceof AgentError ? Number(error.context.retryAfterMs) : Number.NaN;
        const backoff = Math.min(maxDelay, initialDelay * 2 ** (attempt - 1));
        const delay =
          Number.isFinite(hinted) && hinted >= 0 ? Math.min(hinted, maxDelay) : Math.random() * backoff;
        const signal = action.type === 'model_call' ? action.payload.request.signal : undefined;
        await sleep(delay, signal);
      }
    }
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AgentError('aborted while waiting to retry', 'ABORTED'));
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new AgentError('aborted while waiting to retry', 'ABORTED'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
