const ARG = /\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Replaces `{{ args.NAME }}` in a string; `encode` escapes each value for where it goes. */
export function fillArgs(
  text: string,
  args: Record<string, unknown>,
  encode: (value: string) => string = (v) => v,
): string {
  return text.replace(ARG, (_, name: string) => {
    const value = args[name];
    if (value === undefined || value === null) return '';
    return encode(typeof value === 'string' ? value : JSON.stringify(value));
  });
}

/** A string that is exactly one `{{ args.NAME }}`: the argument keeps its JSON type in bodies. */
export function wholeArg(text: string): string | undefined {
  const match = /^\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(text);
  return match?.[1];
}

/** Fills templates through a JSON-like value (for HTTP bodies). */
export function fillArgsDeep(value: unknown, args: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = wholeArg(value);
    return whole !== undefined ? args[whole] : fillArgs(value, args);
  }
  if (Array.isArray(value)) return value.map((item) => fillArgsDeep(item, args));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillArgsDeep(v, args)]));
  }
  return value;
}
