import { randomBytes } from 'node:crypto';

/**
 * Stops the GitHub Actions runner reading workflow commands in the job log, with a token nothing
 * printed meanwhile can guess: returns the line to print first, and the token that
 * {@link resumeCommands} takes to end it.
 */
export function stopCommands(): { line: string; token: string } {
  const token = `agentctl-${randomBytes(16).toString('hex')}`;
  return { line: `::stop-commands::${token}\n`, token };
}

/** The line that makes the runner read workflow commands again after {@link stopCommands}. */
export function resumeCommands(token: string): string {
  return `::${token}::\n`;
}
