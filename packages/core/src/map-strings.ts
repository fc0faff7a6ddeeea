/** A JSON-like value with `map` applied to every string in it, object keys included (a new value; the given one is left as is). */
export function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [map(k), mapStrings(v, map)]));
  return value;
}
