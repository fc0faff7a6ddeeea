import { UsageError } from './llm-agent.js';

/** The rule for session ids, as said to a user who broke it. */
export const SESSION_ID_RULE =
  'a session id is 1-128 characters from A-Z a-z 0-9 . _ -, starts with a letter or digit, ' +
  'contains no "..", does not end in .json, .jsonl, .lock, .lease or .tmp, and is not a name ' +
  'stores keep for themselves (index, scopes, con, nul, aux, prn, com1-9, lpt1-9)';

// Ids become file names (and keys in other stores), so one conservative alphabet for every store.
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// Names the file store gives its own files, and names Windows refuses as file names.
const RESERVED = /^(index|scopes|con|nul|aux|prn|com[1-9]|lpt[1-9])$/i;
const RESERVED_SUFFIX = /\.(json|jsonl|lock|lease|tmp)$/i;

/** A session id that breaks {@link SESSION_ID_RULE}: a usage mistake, not a fault of the store. */
export class InvalidSessionIdError extends UsageError {
  /** The rejected id. */
  readonly id: string;

  constructor(id: string, why: string) {
    super(`invalid session id ${JSON.stringify(id)}: ${why} (${SESSION_ID_RULE})`);
    this.id = id;
  }
}

/** Throws {@link InvalidSessionIdError} unless `id` follows {@link SESSION_ID_RULE}; every store uses it. */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new InvalidSessionIdError(String(id), 'not a string');
  if (id.length === 0) throw new InvalidSessionIdError(id, 'it is empty');
  if (id.length > 128) throw new InvalidSessionIdError(id, `${id.length} characters is too long`);
  if (!ID_PATTERN.test(id)) throw new InvalidSessionIdError(id, 'it has a character outside the alphabet');
  if (id.includes('..')) throw new InvalidSessionIdError(id, 'it contains ".."');
  if (RESERVED.test(id) || RESERVED_SUFFIX.test(id))
    throw new InvalidSessionIdError(id, 'the name is reserved');
}
