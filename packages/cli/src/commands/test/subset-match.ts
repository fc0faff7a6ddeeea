import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '@agentctl/core';

/**
 * True when `actual` holds everything `expected` does: mappings match key by key as subsets,
 * lists item by item (same length), anything else must be equal.
 */
export function subsetMatch(expected: unknown, actual: unknown): boolean {
  if (isPlainObject(expected) && isPlainObject(actual)) {
    return Object.entries(expected).every(
      ([key, value]) => Object.hasOwn(actual, key) && subsetMatch(value, actual[key]),
    );
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return expected.length === actual.length && expected.every((item, i) => subsetMatch(item, actual[i]));
  }
  return isDeepStrictEqual(expected, actual);
}
