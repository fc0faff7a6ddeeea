/** The longest text a diagnostic echoes from the user's files. */
export const EXCERPT_LIMIT = 80;

/** Text from the user's files as a message may echo it: one line, cut to a short excerpt. */
export function excerpt(text: string, limit = EXCERPT_LIMIT): string {
  const line = text.replace(/[\r\n\t]+/g, ' ');
  return line.length <= limit ? line : `${line.slice(0, limit)}… (${line.length} characters)`;
}
