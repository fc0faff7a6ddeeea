/** The longest text a diagnostic echoes from the user's files. */
export const EXCERPT_LIMIT = 80;

/** Text from the user's files as a message may echo it: cut to a short excerpt (the formatters escape line breaks). */
export function excerpt(text: string, limit = EXCERPT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;
}
