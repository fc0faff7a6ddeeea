const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds from a number or a string such as `500ms`, `30s`, `2m`, `1h` (as YAML writes them). */
export function parseDuration(value: number | string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value) : null;
  if (!match)
    throw new TypeError(`${field}: "${String(value)}" is not a duration (use e.g. 500ms, 30s, 2m, 1h)`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']);
}
