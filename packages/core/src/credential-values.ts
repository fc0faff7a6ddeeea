/** Header (and query parameter) names whose values are credentials: `Authorization`, `api-key`, `Helicone-Auth`, `x-portkey-api-key`, a cookie. */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|passw|credential|signature|session/i;
// Names that say a credential only as a word of their own (`DB_PASS`, `--pw`, `SMTP_PWD`): inside
// another word they say nothing (`PASSTHROUGH`, `COMPASS`).
const CREDENTIAL_WORD = /(^|[^a-z])(pass|pwd|pw|bearer|jwt|dsn|private)([^a-z]|$)/i;

/**
 * Whether a name says that what it holds is a credential: a header, a query parameter, an
 * environment variable (`GITHUB_TOKEN`, `DB_PASS`), a command-line flag (`--api-key`) or the word
 * before a value (`Bearer`). The shell's own `PWD` and `OLDPWD` are folders.
 */
export function isCredentialName(name: string): boolean {
  if (name === 'PWD' || name === 'OLDPWD') return false;
  return CREDENTIAL_HEADER.test(name) || CREDENTIAL_WORD.test(name);
}

/**
 * The credentials a provider sends besides its API key, never to be shown in an error: the
 * values of its credential headers (a gateway's `Helicone-Auth: Bearer ...`, Azure's `api-key`),
 * each also without its scheme, since a server that echoes a token quotes it bare, and the user,
 * password and credential query parameters of a base URL.
 *
 * @example
 * credentialValues({ 'Helicone-Auth': 'Bearer sk-helicone-1' }); // ['Bearer sk-helicone-1', 'sk-helicone-1']
 */
export function credentialValues(headers: Readonly<Record<string, string>> = {}, baseUrl?: string): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADER.test(name) || typeof value !== 'string') continue;
    out.push(value);
    const bare = /^[A-Za-z][\w-]*\s+(\S.*)$/.exec(value.trim())?.[1];
    if (bare) out.push(bare);
  }
  // A provider's base URL names no one else: its user is the account, hidden as its password is.
  if (baseUrl) out.push(...urlCredentials(baseUrl, { user: true }));
  return out;
}

/**
 * The credentials written into a URL: its password (as written and decoded), the values of
 * credential query parameters (a gateway's `?key=...`, `?api_key=...`), and its user name when
 * `user` is set. Nothing when the text is not a URL.
 *
 * @example
 * urlCredentials('https://u:p%40ss@h/?api_key=k1'); // ['p%40ss', 'p@ss', 'k1']
 */
export function urlCredentials(text: string, { user = false }: { user?: boolean } = {}): string[] {
  const out: string[] = [];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not a URL: whoever uses it says so.
    return out;
  }
  for (const part of user ? [url.password, url.username] : [url.password])
    if (part) out.push(part, decoded(part));
  for (const [name, value] of url.searchParams) if (value && isCredentialName(name)) out.push(value);
  return out;
}

/**
 * The text with every secret of at least 4 characters replaced by `[redacted]`.
 *
 * @example
 * redactSecrets('bad key sk-1234', ['sk-1234']); // 'bad key [redacted]'
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

// A stray `%` (`p%zz`) stays as written: the URL sends it so.
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
