const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration written as a number (ms) or a string such as `30s`, `2m`; undefined stays undefined. */
export function parseDuration(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!match)
    throw new TypeError(`"${value}" is not a duration (use milliseconds, or e.g. 500ms, 30s, 2m, 1h)`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']);
}
