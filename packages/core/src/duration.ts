const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * Milliseconds of a duration as YAML writes it: a number (already ms) or a string such as `500ms`,
 * `30s`, `2m`, `1h`, `30d`, rounded to whole ms (above zero stays at least 1); undefined stays
 * undefined. Throws a TypeError naming `field`.
 *
 * @example
 * parseDuration('2m'); // 120000
 */
export function parseDuration(value: number | string, field?: string): number;
export function parseDuration(value: number | string | undefined, field?: string): number | undefined;
export function parseDuration(value: number | string | undefined, field?: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(value) : null;
  if (!match) {
    const where = field ? `${field}: ` : '';
    throw new TypeError(`${where}"${String(value)}" is not a duration (use e.g. 500ms, 30s, 2m, 1h)`);
  }
  const ms = Number(match[1]) * UNITS[match[2] ?? 'ms'];
  // A duration written above zero stays above zero: `0.4ms` rounded to 0 would end every call at
  // its start, where the schema (and so `validate`) took it as "more than zero".
  return ms > 0 ? Math.max(1, Math.round(ms)) : 0;
}
