import { parseDuration } from '@agentctl/core';

/**
 * Milliseconds of a duration the schema asks to be longer than zero (`positiveDuration`). The
 * schema refuses a `0s` written; this refuses one a `${VAR}` makes, in validate's env-values and
 * at compile alike: a limit of zero would end every run, call or start the moment it began.
 */
export function positiveDuration(value: number | string | undefined, field: string): number | undefined {
  const ms = parseDuration(value, field);
  if (ms === 0) throw new Error(`${field}: must be longer than zero`);
  return ms;
}
