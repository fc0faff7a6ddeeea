/**
 * Exit codes of every command: 0 ok, 1 invalid config or failed run, 2 bad usage, 3 internal
 * error; a run cancelled by Ctrl-C or by its output's reader going away exits as the shell reports
 * those signals (128 + SIGINT, 128 + SIGPIPE).
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  internal: 3,
  hangup: 129,
  interrupted: 130,
  outputClosed: 141,
  terminated: 143,
} as const;

/** An error meant for the user: printed as one line without a stack trace, with its exit code. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.failed) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}
