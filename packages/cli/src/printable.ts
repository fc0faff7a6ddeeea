// C0 controls (but tab and newline), DEL, C1 controls, and bidirectional overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text a tool or a model wrote, made safe for a terminal: control characters and bidi overrides
 * are shown as `\uXXXX`, so a file the agent read or an argument the model chose cannot move the
 * cursor, recolour or rewrite the screen, or reorder what a person is asked to approve.
 *
 * @example
 * printable('\u001b[2Jok'); // '\\u001b[2Jok'
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
