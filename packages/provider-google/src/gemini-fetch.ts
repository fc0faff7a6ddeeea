import { providerFetch, retryAfterFromHeaders } from '@agentctl/core';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The `fetch` of the Gemini client: {@link providerFetch} with `query` (a `base_url`'s own, such as
 * a gateway's, which the SDK would append its path to as text) added to every request, and a
 * `Retry-After` (or `retry-after-ms`) header of an error answer turned into the `RetryInfo`
 * detail Gemini itself uses. The SDK's error keeps the body only, so the header a proxy or
 * gateway in front of the API sends (seconds or an HTTP date) was lost and the retries came far
 * too early.
 *
 * @example
 * new GoogleGenAI({ apiKey, httpOptions: { fetch: geminiFetch({ 'api-version': '1' }) } });
 */
export function geminiFetch(
  query: Readonly<Record<string, string>> = {},
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const target =
      Object.keys(query).length > 0 && !(input instanceof Request) ? withQuery(input, query) : input;
    const response = await providerFetch(target, init);
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
  };
}

function withQuery(input: string | URL, query: Readonly<Record<string, string>>): string {
  const url = new URL(String(input));
  for (const [name, value] of Object.entries(query))
    if (!url.searchParams.has(name)) url.searchParams.set(name, value);
  return url.href;
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
