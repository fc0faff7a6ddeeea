/** A `base_url` taken apart for an SDK: the address it appends paths to, and the query to send with every request. */
export interface BaseUrlParts {
  /** The URL without its query and fragment. */
  base: string;
  /** The parameters of its query (Azure OpenAI's `api-version`), when it has any. */
  query?: Record<string, string>;
}

/**
 * Takes a `base_url`'s query apart from it. The SDKs append their paths to the base URL as text,
 * so `https://x.openai.azure.com/openai/deployments/gpt4?api-version=2024-10-21` became a request
 * to `...?api-version=2024-10-21%2Fchat%2Fcompletions`; the query is sent as the SDK's default
 * query instead. A URL that does not parse is left to the SDK, which says so.
 *
 * @example
 * baseUrlParts('https://x.openai.azure.com/openai/deployments/gpt4?api-version=2024-10-21');
 * // { base: 'https://x.openai.azure.com/openai/deployments/gpt4', query: { 'api-version': '2024-10-21' } }
 */
export function baseUrlParts(url: string): BaseUrlParts {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { base: url };
  }
  if (!parsed.search && !parsed.hash) return { base: url };
  const query = Object.fromEntries(parsed.searchParams);
  parsed.search = '';
  parsed.hash = '';
  return { base: parsed.href, ...(Object.keys(query).length > 0 ? { query } : {}) };
}
