/**
 * A file name (or path) as the file tools print it: as it is, or JSON-quoted when it holds a
 * control character or a quote at its start, so a name with a newline cannot pass for another
 * entry, or another match, in what the model reads.
 *
 * @example
 * shownName('notes\nsecret.txt (3 bytes)'); // '"notes\\nsecret.txt (3 bytes)"'
 */
export function shownName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|^"/.test(name) ? JSON.stringify(name) : name;
}
