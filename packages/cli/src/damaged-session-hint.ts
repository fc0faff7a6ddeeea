/**
 * What a user can do about a session the store cannot read: with the line named, mend that line
 * and keep the rest; else start again. Removing the session loses all of it, so it comes last.
 * `removeCommand` is the `sessions rm` line as the user can type it from where they are.
 */
export function damagedSessionHint(error: Error, removeCommand: string): string {
  const line = (error as { line?: unknown }).line;
  const path = (error as { path?: unknown }).path;
  const mend =
    typeof line === 'number' && typeof path === 'string' && line > 1
      ? `fix or delete line ${line} of the file, which keeps what the other lines hold; or `
      : '';
  return `(it cannot be continued as it is: ${mend}start a new session, or remove this one with \`${removeCommand}\`, which loses all of it)`;
}
