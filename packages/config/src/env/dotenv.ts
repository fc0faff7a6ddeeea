const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/;

/**
 * Parses a .env file: `KEY=VALUE` lines, `export KEY=...`, `#` comments, single quotes (literal),
 * double quotes (with \n, \t, \", \\ escapes). Malformed lines are skipped ({@link dotenvProblems}
 * says which).
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
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

/** A line of a .env file that {@link parseDotenv} skips, and how to write it; never its value. */
export interface DotenvProblem {
  line: number;
  col: number;
  message: string;
}

/** The lines of a .env file that are not `NAME=value` (so set nothing), with the fix for each. */
export function dotenvProblems(text: string): DotenvProblem[] {
  const out: DotenvProblem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || ASSIGNMENT.test(line)) return;
    // The name alone is echoed: the rest of the line may well be a secret.
    const name = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)/.exec(line)?.[1];
    const fix = name ? `; write \`${name}=value\`` : '';
    out.push({
      line: index + 1,
      col: raw.length - raw.trimStart().length + 1,
      message: `not a \`NAME=value\` line, so it sets nothing${fix}`,
    });
  });
  return out;
}

function findClosingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
