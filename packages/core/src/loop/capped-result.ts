/**
 * A tool result's text as the model gets it and the session keeps it: at most `limit` bytes of
 * UTF-8, cut on a character boundary, then a line saying how much there was.
 */
export function cappedResult(content: string, limit: number): string {
  // A string of n UTF-16 units is at most 3n bytes: most results are measured without encoding.
  if (content.length * 3 <= limit) return content;
  const size = Buffer.byteLength(content);
  if (size <= limit) return content;
  let kept = Buffer.from(content).subarray(0, limit).toString('utf8');
  // A character cut in two decodes to U+FFFD; it is dropped, not shown as if the tool said it.
  if (kept.endsWith('\uFFFD') && !content.startsWith(kept)) kept = kept.slice(0, -1);
  return `${kept}\n[truncated: the result has ${size} bytes; the first ${Buffer.byteLength(kept)} are shown]`;
}
