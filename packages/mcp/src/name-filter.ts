import { globMatcher } from '@agentctl/core';

/** True when `name` matches a pattern where `*` stands for any run of characters. */
export function matchesName(pattern: string, name: string): boolean {
  return globMatcher(pattern)(name);
}

/** Keeps the names `include` selects (all when absent) and `exclude` does not. */
export function filterNames(
  names: readonly string[],
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): string[] {
  return names.filter(
    (name) =>
      (!include || include.some((p) => matchesName(p, name))) &&
      !(exclude ?? []).some((p) => matchesName(p, name)),
  );
}

/**
 * The name the model sees: the prefix joined to the name exactly as written (`prefix: docs_` gives
 * `docs_write_file`; no separator is added), with characters providers refuse replaced by `_` and
 * cut to the 64 characters every provider accepts.
 */
export function exposedName(name: string, prefix: string | undefined): string {
  const full = prefix ? `${prefix}${name}` : name;
  return full.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}
