import { CliError, EXIT } from './cli-error.js';

/**
 * Waits for `valid` (the first good build of a watched project that started broken) while the
 * watch goes on; SIGINT or SIGTERM during the wait ends it with a {@link CliError} of the shell's
 * code for that signal, so Ctrl-C stops a `dev` that never had a working version as promptly as
 * one that did.
 */
export async function untilValid<T>(valid: Promise<T>): Promise<T> {
  let stop: ((signal: NodeJS.Signals) => void) | undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    stop = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => stop?.(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const first = await Promise.race([
      valid.then((value) => ({ value })),
      stopped.then((signal) => ({ signal })),
    ]);
    if ('value' in first) return first.value;
    throw new CliError(
      `stopped by ${first.signal} before the project had a working version; nothing was run`,
      first.signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
