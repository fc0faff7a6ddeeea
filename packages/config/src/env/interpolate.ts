/** One `${...}` reference found in a string. */
export interface EnvReference {
  name: string;
  /** `-` for `${VAR:-default}`, `?` for `${VAR:?message}`, undefined for `${VAR}`. */
  operator?: '-' | '?';
  /** The default or the message. */
  argument?: string;
}

/** The environment interpolation reads: values, `undefined` when unset. */
export type Env = Record<string, string | undefined>;

const PATTERN = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}/g;

/** The `${VAR}` references in a string (`$$` is an escaped `$`). */
export function envReferences(text: string): EnvReference[] {
  const out: EnvReference[] = [];
  for (const match of text.matchAll(PATTERN)) {
    if (match[0] === '$$') continue;
    out.push({ name: match[1], operator: match[2] as EnvReference['operator'], argument: match[3] });
  }
  return out;
}

/** Thrown when `${VAR:?message}` names an unset variable; the message never holds a value. */
export class MissingEnvError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Replaces `${VAR}`, `${VAR:-default}` and `${VAR:?message}` in a string; `$$` stands for `$`.
 * An unset `${VAR}` becomes empty; an unset or empty `${VAR:?msg}` throws {@link MissingEnvError}.
 * `onValue` sees every value taken from the environment, with the variable's name and the text
 * written before the reference, so callers can judge which are secrets.
 */
export function interpolate(
  text: string,
  env: Env,
  onValue?: (value: string, name: string, before: string) => void,
): string {
  if (!text.includes('$')) return text;
  return text.replace(
    PATTERN,
    (
      whole,
      name: string | undefined,
      operator: string | undefined,
      argument: string | undefined,
      offset: number,
    ) => {
      if (whole === '$$') return '$';
      const value = env[name as string];
      const set = value !== undefined && value !== '';
      if (operator === '?' && !set) {
        throw new MissingEnvError(
          name as string,
          `environment variable ${name} is not set${argument ? `: ${argument}` : ''}`,
        );
      }
      const out = set ? (value as string) : operator === '-' ? (argument ?? '') : (value ?? '');
      if (set && onValue) onValue(out, name as string, text.slice(0, offset));
      return out;
    },
  );
}

/** Interpolates every string in a JSON-like value; `path` says where each string sits. */
export function interpolateDeep<T>(
  value: T,
  replace: (text: string, path: ReadonlyArray<string | number>) => string,
  path: Array<string | number> = [],
): T {
  if (typeof value === 'string') return replace(value, path) as T;
  if (Array.isArray(value)) return value.map((item, i) => interpolateDeep(item, replace, [...path, i])) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = interpolateDeep(item, replace, [...path, key]);
    return out as T;
  }
  return value;
}
