/** Applies a state delta to a state object in place; a `null` value deletes the key. */
export function applyDelta(state: Record<string, unknown>, delta: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(delta)) {
    if (value === null) delete state[key];
    else state[key] = value;
  }
}
