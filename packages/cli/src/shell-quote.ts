/**
 * `text` as one word of a POSIX shell command line, for a command printed for the user to type:
 * bare when it is plain, in double quotes when nothing in it is special there, else in single
 * quotes (in double quotes `$x` and `` `cmd` `` would still be expanded).
 *
 * @example
 * shellQuote('what time is it?'); // '"what time is it?"'
 * shellQuote('my$project'); // "'my$project'"
 */
export function shellQuote(text: string): string {
  if (/^[\w./-]+$/.test(text)) return text;
  if (!/[$`\\"!]/.test(text)) return `"${text}"`;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
