/**
 * The text of a YAML file without its byte order mark: the `yaml` library counts the mark as a
 * character, which put every position on line 1 one column right of where an editor shows it.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
