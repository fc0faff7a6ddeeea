import type { PluginProblem } from '../registry.js';
import { excerpt } from './excerpt.js';

/** True when the runtime knows `zone` as a time zone (an IANA name such as `Europe/Paris`, or `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A built-in's `timezone` is one the runtime knows: an unknown one passes the schema (a string)
 * and fails every call that names no zone of its own (`current_time`).
 */
export function timeZoneRule(options: Record<string, unknown>): PluginProblem[] {
  const zone = options.timezone;
  if (typeof zone !== 'string' || zone.includes('${') || isTimeZone(zone)) return [];
  return [
    {
      path: ['timezone'],
      message: `unknown time zone "${excerpt(zone)}" (use an IANA name such as "Europe/Paris" or "UTC")`,
    },
  ];
}
