/**
 * Why Anthropic says the account cannot be served until its billing changes, as opposed to a
 * passing limit: a 429 `rate_limit_error` whose `details.error_code` is
 * `enforced_spend_limit_reached` (the tier's monthly cap, sent without `retry-after`), or a
 * `billing_error`. Undefined for any other error.
 */
export function quotaReason(error: unknown): string | undefined {
  const body = (error as { error?: unknown } | null)?.error;
  const inner = (body as { error?: unknown } | null | undefined)?.error ?? body;
  if (!inner || typeof inner !== 'object') return undefined;
  const { type, details } = inner as { type?: unknown; details?: unknown };
  const code = (details as { error_code?: unknown } | null | undefined)?.error_code;
  if (code === 'enforced_spend_limit_reached') return code;
  if (type === 'billing_error') return type;
  return undefined;
}
