import { providerFetch, retryAfterFromHeaders } from '@agentctl/core';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The `fetch` of the Gemini client: {@link providerFetch}, and a `Retry-After` (or
 * `retry-after-ms`) header of an error answer turned into the `RetryInfo` detail Gemini itself
 * uses. The SDK's error keeps the body only, so the header a proxy or gateway in front of the API
 * sends (seconds or an HTTP date) was lost and the retries came far too early.
 *
 * @example
 * new GoogleGenAI({ apiKey, httpOptions: { fetch: geminiFetch } });
 */
export async function geminiFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await providerFetch(input, init);
  if (response.ok) return response;
  const waitMs = retryAfterFromHeaders(response.headers);
  if (waitMs === undefined) return response;
  const text = await response.text();
  const body = withRetryInfo(text, response, waitMs);
  return new Response(JSON.stringify(body), {
    status: response.status,
    statusText: response.statusText,
    headers: { 'content-type': 'application/json' },
  });
}

// The error body, as JSON in Gemini's shape (`{ error: { code, message, status, details } }`),
// with a RetryInfo detail unless it has one already.
function withRetryInfo(text: string, response: Response, waitMs: number): { error: Record<string, unknown> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const inner = (parsed as { error?: unknown } | undefined)?.error;
  const error: Record<string, unknown> =
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? { ...(inner as Record<string, unknown>) }
      : { code: response.status, message: text || response.statusText, status: response.statusText };
  const details = Array.isArray(error.details) ? error.details : [];
  if (!details.some((d) => (d as { '@type'?: unknown } | null)?.['@type'] === RETRY_INFO))
    error.details = [...details, { '@type': RETRY_INFO, retryDelay: `${waitMs / 1000}s` }];
  return { error };
}
