import { InvalidSessionIdError } from './errors.js';

// Ids become file names, so only a conservative alphabet is allowed; `index` names the index files.
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const RESERVED = new Set(['index']);

/** Throws {@link InvalidSessionIdError} unless `id` is safe as a file name (no separators, no traversal). */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new InvalidSessionIdError(String(id), 'must be a string');
  if (!ID_PATTERN.test(id)) {
    throw new InvalidSessionIdError(
      id,
      'use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
  if (id.includes('..')) throw new InvalidSessionIdError(id, 'must not contain ".."');
  if (RESERVED.has(id.toLowerCase())) throw new InvalidSessionIdError(id, `"${id}" is reserved`);
}
