// Texts already shown in this process.
const shown = new Set<string>();

/**
 * Shows a warning (through `write`, `console.warn` by default) the first time its text appears in
 * this process, and returns whether it was shown. A warning about a model repeats on every
 * request otherwise, drowning the output of a long run.
 */
export function warnOnce(message: string, write: (text: string) => void = console.warn): boolean {
  if (shown.has(message)) return false;
  shown.add(message);
  write(message);
  return true;
}

/**
 * Runs a synchronous provider SDK call with the SDK's `console.warn` output routed through
 * {@link warnOnce}: SDKs warn about a deprecated model on every request they make, and this shows
 * it once per process. Only warnings written while `call` runs are caught, so nothing else is.
 *
 * @example
 * const stream = await sdkWarningsOnce(() => client.messages.create(body));
 */
export function sdkWarningsOnce<T>(call: () => T): T {
  const original = console.warn;
  const write = (text: string) => original.call(console, text);
  console.warn = (...args: unknown[]) => {
    warnOnce(args.map((a) => (typeof a === 'string' ? a : String(a))).join(' '), write);
  };
  try {
    return call();
  } finally {
    console.warn = original;
  }
}
