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
  if (baseUrl) {
    try {
      const url = new URL(baseUrl);
      for (const part of [url.password, url.username]) if (part) out.push(part, decodeURIComponent(part));
      // A gateway that takes its key in the query (`?key=...`, `?api_key=...`).
      for (const [name, value] of url.searchParams)
        if (CREDENTIAL_HEADER.test(name) && value) out.push(value);
    } catch {
      // Not a URL: the SDK says so when it is used.
    }
  }
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
