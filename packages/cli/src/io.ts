import { isatty } from 'node:tty';

/** Where a command writes, and what it knows about the terminal; tests pass their own. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stdout is a terminal (colours, code frames, spinners). */
  isTTY: boolean;
  /** True when stdin is a terminal (interactive prompts). */
  stdinIsTTY: boolean;
  /** True when stderr is a terminal (the spinner; it is not colour, so NO_COLOR leaves it on). */
  stderrIsTTY?: boolean;
  /** Aborted once the reader of stdout has gone (`agentctl run a --json | head -1`); later writes are dropped. */
  outputClosed?: AbortSignal;
  /**
   * Resolves once stdout has handed on what was written to it, or its reader has gone: a long
   * output to a pipe waits for a slow reader instead of piling up in memory.
   */
  stdoutDrained?: () => Promise<void>;
  /** What stopped stdout other than its reader going away (a full disk under `> file`): the command fails. */
  outputFailure?: () => Error | undefined;
  /**
   * From now on stdout holds only what the command writes through `stdout` (NDJSON, a report):
   * anything else written there (a module tool's `console.log`) goes to stderr instead.
   */
  reserveStdout?: () => void;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** The process's own streams. */
export function processIo(): Io {
  // A reader that stops early (`agentctl run a --json | head`) is not an error: a run is cancelled
  // cleanly instead (the session stays valid), and other commands finish writing into nothing.
  // Any other failure (`> file` on a full disk) also stops the output; the command then fails with it.
  const closed = new AbortController();
  let failure: Error | undefined;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') failure ??= error;
    closed.abort();
  });
  // Stderr carries progress, not the result: its reader going away (`2>&1 | head -1`) only silences
  // it. Unheard, the stream's error would end the process mid-run, its session half-written.
  let stderrGone = false;
  process.stderr.on('error', () => {
    stderrGone = true;
  });
  // Kept aside: once stdout is reserved, `process.stdout.write` is everyone else's, sent to stderr.
  const writeStdout = process.stdout.write.bind(process.stdout);
  return {
    stdout: (text) => {
      if (!closed.signal.aborted) writeStdout(text);
    },
    reserveStdout: () => {
      process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
    },
    outputClosed: closed.signal,
    stdoutDrained: () => {
      // A terminal or a file takes each write at once; a pipe buffers what its reader has not read.
      if (closed.signal.aborted || !process.stdout.writableNeedDrain) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          process.stdout.off('drain', done);
          closed.signal.removeEventListener('abort', done);
          resolve();
        };
        process.stdout.once('drain', done);
        closed.signal.addEventListener('abort', done, { once: true });
      });
    },
    outputFailure: () => failure,
    stderr: (text) => {
      if (!stderrGone) process.stderr.write(text);
    },
    isTTY: Boolean(process.stdout.isTTY) && process.env.NO_COLOR === undefined,
    // Asked of the descriptor: reading process.stdin would open a stream a one-shot run never reads.
    stdinIsTTY: isatty(0),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** ANSI styling that turns itself off when the output is not a terminal. */
export function styles(enabled: boolean) {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
