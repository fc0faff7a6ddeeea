/** How a request is retried: attempts and the bounds of the backoff between them. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Upper bound of the first backoff in ms; doubles with each attempt. */
  initialDelayMs: number;
  /** Upper bound of any one wait in ms; a longer `Retry-After` ends the retries instead. */
  maxDelayMs: number;
}

/** The defaults of {@link retryPolicy}: 3 attempts, 500 ms doubling, at most 30 s a wait. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 3,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
};

/** Fills in a partial {@link RetryPolicy} with the defaults and clamps nonsense values. */
export function retryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  const pick = (value: number | undefined, fallback: number) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
  return {
    maxAttempts: Math.max(1, Math.floor(pick(options.maxAttempts, DEFAULT_RETRY_POLICY.maxAttempts))),
    initialDelayMs: pick(options.initialDelayMs, DEFAULT_RETRY_POLICY.initialDelayMs),
    maxDelayMs: pick(options.maxDelayMs, DEFAULT_RETRY_POLICY.maxDelayMs),
  };
}

/**
 * The one backoff: how long to wait before attempt `attempt + 1`. The server's hint when it gave
 * one (or `undefined` when the hint exceeds `maxDelayMs`, since retrying earlier is pointless),
 * else exponential backoff with full jitter: uniform in
 * [0, min(maxDelayMs, initialDelayMs * 2^(attempt-1))].
 */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
