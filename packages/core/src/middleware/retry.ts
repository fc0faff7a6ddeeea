import { AgentError } from '../errors.js';
import { classifyFailure } from '../retry-policy.js';
import { backoffDelay, retryPolicy } from '../timing/backoff.js';
import { sleep } from '../timing/sleep.js';
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
  const policy = retryPolicy({
    maxAttempts: options.maxAttempts,
    initialDelayMs: options.initialDelay,
    maxDelayMs: options.maxDelay,
  });
  const on = new Set<string>(options.on ?? ['model_call']);
  return async function retryMiddleware(action, next) {
    if (!on.has(action.type)) return next();
    for (let attempt = 1; ; attempt++) {
      try {
        return await next();
      } catch (error) {
        const info = classifyFailure(error);
        if (!(error instanceof AgentError) || !info.retryable || attempt >= policy.maxAttempts) throw error;
        const delay = backoffDelay(policy, attempt, info.retryAfterMs);
        if (delay === undefined) throw error;
        const signal =
          action.type === 'model_call'
            ? action.payload.request.signal
            : action.type === 'tool_call'
              ? action.payload.signal
              : undefined;
        await sleep(delay, signal, 'waiting to retry');
      }
    }
  };
}
