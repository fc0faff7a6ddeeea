/**
 * Parses a .env file: `KEY=VALUE` lines, `export KEY=...`, `#` comments, single quotes (literal),
 * double quotes (with \n, \t, \", \\ escapes). Malformed lines are skipped.
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, key, rest] = match;
    let value: string;
    if (rest.startsWith('"')) {
      const end = findClosingQuote(rest);
      value = rest
        .slice(1, end === -1 ? undefined : end)
        .replace(/\\([nrt"\\])/g, (_, c: string) =>
          c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c,
        );
    } else if (rest.startsWith("'")) {
      const end = rest.indexOf("'", 1);
      value = rest.slice(1, end === -1 ? undefined : end);
    } else {
      value = rest.replace(/\s+#.*$/, '').trim();
    }
    out[key] = value;
  }
  return out;
}

function findClosingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
