import { parseDuration } from '@agentctl/core';

/** What a Gemini API error body says, as far as a retry and a message need it. */
export interface GeminiErrorFacts {
  /** The API's message (`error.message`). */
  message?: string;
  /** The canonical status, such as `RESOURCE_EXHAUSTED` or `UNAVAILABLE`. */
  status?: string;
  /** The server's wait hint from a `google.rpc.RetryInfo` detail, in ms. */
  retryAfterMs?: number;
  /** The `reason` of a `google.rpc.ErrorInfo` detail, such as `API_KEY_INVALID` (sent with a 400). */
  reason?: string;
  /**
   * Why the 429 is a quota no wait ends soon, unlike a per-minute limit: a daily quota used up,
   * a quota of 0 (the model is not in the key's plan without billing), no credits left.
   */
  quotaExhausted?: string;
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure';
// ErrorInfo reasons that mean the credit or the quota is gone, not that requests came too fast.
const EXHAUSTED_REASONS = new Set(['INSUFFICIENT_G1_CREDITS_BALANCE', 'QUOTA_EXHAUSTED']);

/**
 * Reads the error body the SDK puts in an `ApiError`'s message: the JSON of an HTTP error
 * response, or `got status: ... {json}` for an error chunk inside a stream. Gemini gives no
 * `Retry-After` header; its wait hint is the `retryDelay` (a protobuf Duration such as `"27s"`
 * or `"1.5s"`) of a `RetryInfo` detail.
 */
export function geminiErrorFacts(error: unknown): GeminiErrorFacts {
  const text = (error as { message?: unknown } | null)?.message;
  if (typeof text !== 'string') return {};
  const start = text.indexOf('{');
  if (start < 0) return {};
  let body: unknown;
  try {
    body = JSON.parse(text.slice(start));
  } catch {
    return {};
  }
  const inner = (body as { error?: unknown } | null)?.error;
  if (!inner || typeof inner !== 'object') return {};
  const e = inner as { message?: unknown; status?: unknown; details?: unknown };
  const facts: GeminiErrorFacts = {};
  if (typeof e.message === 'string' && e.message) facts.message = e.message;
  if (typeof e.status === 'string' && e.status) facts.status = e.status;
  for (const detail of Array.isArray(e.details) ? e.details : []) {
    const d = detail as { '@type'?: unknown; retryDelay?: unknown; reason?: unknown; violations?: unknown };
    if (d['@type'] === ERROR_INFO && typeof d.reason === 'string' && d.reason) {
      facts.reason = d.reason;
      if (EXHAUSTED_REASONS.has(d.reason)) facts.quotaExhausted ??= d.reason;
    }
    if (d['@type'] === QUOTA_FAILURE && Array.isArray(d.violations))
      facts.quotaExhausted ??= exhaustedQuota(d.violations);
    if (d['@type'] === RETRY_INFO && typeof d.retryDelay === 'string') {
      const ms = retryDelayMs(d.retryDelay);
      if (ms !== undefined) facts.retryAfterMs = ms;
    }
  }
  return facts;
}

// A daily quota waits for tomorrow and a quota of 0 for billing: both outlast any retry.
function exhaustedQuota(violations: unknown[]): string | undefined {
  for (const violation of violations) {
    const v = (violation ?? {}) as { quotaId?: unknown; quotaMetric?: unknown; quotaValue?: unknown };
    const id = typeof v.quotaId === 'string' ? v.quotaId : '';
    const named = id || (typeof v.quotaMetric === 'string' ? v.quotaMetric : 'a quota');
    if (String(v.quotaValue) === '0') return `${named} is 0 on this plan`;
    if (/PerDay|Daily/.test(id)) return `daily quota ${id}`;
  }
  return undefined;
}

function retryDelayMs(value: string): number | undefined {
  try {
    return parseDuration(value, 'retryDelay');
  } catch {
    return undefined;
  }
}
