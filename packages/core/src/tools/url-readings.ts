/**
 * The URL an HTTP tool will request for `value`, as approval rules read it: parsed as fetch parses
 * it (scheme and host in lower case, the default port left out, `.`, `..` and `%2e` segments
 * resolved, `\` as `/`), and once more with its escapes decoded, as the server reads them. So
 * `HTTPS://Api.Example.com:443/x/../%61dmin` reads `https://api.example.com/admin`. Empty for a
 * value that is no http or https URL (the tool refuses it).
 *
 * @example
 * urlReadings('https://EXAMPLE.com:443/a/%2e%2e/b'); // ['https://example.com/b']
 */
export function urlReadings(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [];
  const readings = [url.href];
  try {
    readings.push(decodeURIComponent(url.href));
  } catch {
    // A stray `%` decodes to nothing; the parsed form stands alone.
  }
  return [...new Set(readings)];
}
