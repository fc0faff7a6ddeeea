import { isPlainObject } from '../plain-object.js';
import { sameJson } from '../same-json.js';

/** What agentctl's own rules put in place of what they hide: the project's secrets, `redaction`'s default. */
export const KNOWN_REDACTION_MARKERS: readonly string[] = ['***', '[REDACTED]'];

// Past this many markers in one string, the match below could backtrack for long: not a copy.
const MAX_MARKERS = 64;

/**
 * Whether `recorded` can be `real` with some of its text hidden: the same shape, the same numbers,
 * booleans and nulls, and each string (object keys too) equal, or equal but for spans the recorded
 * copy shows as one of the `markers`. Holds whatever rules did the hiding, so a copy recorded under
 * redaction rules changed since is still told apart from one whose visible text was changed.
 */
export function isRedactedCopy(recorded: unknown, real: unknown, markers: readonly string[]): boolean {
  if (typeof recorded === 'string') {
    return typeof real === 'string' && (recorded === real || hidesSpansOf(recorded, real, markers));
  }
  if (Array.isArray(recorded)) {
    return (
      Array.isArray(real) &&
      recorded.length === real.length &&
      recorded.every((item, i) => isRedactedCopy(item, real[i], markers))
    );
  }
  if (isPlainObject(recorded)) {
    if (!isPlainObject(real)) return false;
    const keys = Object.keys(recorded);
    if (keys.length !== Object.keys(real).length) return false;
    // Keys kept as they were pair up by name (a store may reorder them); hidden ones in order.
    const hidden = keys.filter((key) => !Object.hasOwn(real, key));
    const left = Object.keys(real).filter((key) => !Object.hasOwn(recorded, key));
    return (
      keys.every((key) => !Object.hasOwn(real, key) || isRedactedCopy(recorded[key], real[key], markers)) &&
      hidden.every(
        (key, i) =>
          hidesSpansOf(key, left[i] as string, markers) &&
          isRedactedCopy(recorded[key], real[left[i] as string], markers),
      )
    );
  }
  return sameJson(recorded, real);
}

// `recorded` is `real` with one or more non-empty spans replaced by markers, the rest unchanged.
function hidesSpansOf(recorded: string, real: string, markers: readonly string[]): boolean {
  const found = markers.filter((m) => m.length > 0 && recorded.includes(m));
  if (found.length === 0) return false;
  const alternatives = found
    .sort((a, b) => b.length - a.length)
    .map(literal)
    .join('|');
  const parts = recorded.split(new RegExp(`(?:${alternatives})`));
  if (parts.length - 1 > MAX_MARKERS) return false;
  return new RegExp(`^${parts.map(literal).join('[\\s\\S]+?')}$`).test(real);
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
