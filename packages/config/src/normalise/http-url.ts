/** Why a URL with a user or password in it is refused, after the field's name. */
export const HAS_CREDENTIALS =
  'has a user name or password in it, which no request may carry; send them in a header instead (`authorization: Basic ...` in `headers`)';

/**
 * `url` when it is an http:// or https:// URL without credentials (or empty, which env-empty speaks of); otherwise a
 * throw naming `field`. The schema asks that of a url as written; this checks one `${VAR}` made,
 * where compile and validate's env-values resolve it (`${HOST}/v1` with HOST unset is `/v1`). The
 * value is not repeated: it may hold a secret.
 */
export function httpUrl(url: string | undefined, field: string): string | undefined {
  if (url === undefined || url === '') return url;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new Error(`${field}: is not an http:// or https:// URL with this environment`);
  // fetch refuses such a URL outright: every request would fail, and its error would quote it whole.
  if (parsed.username || parsed.password) throw new Error(`${field}: ${HAS_CREDENTIALS}`);
  return url;
}
