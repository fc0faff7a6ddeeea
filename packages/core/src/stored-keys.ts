// Which keys of a state record (a tool call's delta, a parallel branch's writes, their merge) hold a
// value `state.update` already stored in its shared scope. Kept beside the record rather than in it:
// a middleware that replaces a delta makes a new record, whose values are then the run's own writes.
const storedKeys = new WeakMap<object, Set<string>>();

/** The keys of `record` whose values the shared store already holds (`state.update`'s results). */
export function storedKeysOf(record: object): ReadonlySet<string> | undefined {
  return storedKeys.get(record);
}

/** Marks `key` of `record` as holding what the shared store holds (`stored`), or as the run's own write. */
export function markStored(record: object, key: string, stored: boolean): void {
  const keys = storedKeys.get(record);
  if (stored) {
    if (keys) keys.add(key);
    else storedKeys.set(record, new Set([key]));
  } else keys?.delete(key);
}
