import { providerErrorFacts } from '@agentctl/core';

// OpenAI answers these with the 429 of a rate limit, but only billing or a new month ends them.
const QUOTA_CODES = new Set([
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
  'billing_hard_limit_reached',
]);

/**
 * The error `code` (or `type`) by which OpenAI says the account is out of credit or over a spend
 * or usage limit, as opposed to `rate_limit_exceeded`; undefined for any other error.
 */
export function quotaCode(error: unknown): string | undefined {
  const { code, type } = providerErrorFacts(error);
  if (code && QUOTA_CODES.has(code)) return code;
  if (type && QUOTA_CODES.has(type)) return type;
  return undefined;
}
