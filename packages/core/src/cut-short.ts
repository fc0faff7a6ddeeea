/** The text as a message quotes it: at most `limit` characters, and `…` when it was cut. */
export function cutShort(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
