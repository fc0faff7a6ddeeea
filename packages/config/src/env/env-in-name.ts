/**
 * What a diagnostic adds when a name written with `${VAR}` is not found: names are read as written
 * (only an agent's `model` and the project's `defaults.model` resolve `${VAR}`), so the reference
 * names nothing whatever the environment holds. Empty for a name without `${`.
 */
export function envInName(name: unknown): string {
  return typeof name === 'string' && name.includes('${')
    ? '; `${VAR}` is not read in a name (only in `model` and `defaults.model`): write the name itself'
    : '';
}
