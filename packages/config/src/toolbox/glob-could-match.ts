/**
 * Whether some text starting with `prefix` matches `pattern`, a glob where `*` stands for any run
 * of characters: the text so far leaves the pattern a way to match.
 *
 * @example
 * globCouldMatch('git push*', 'git'); // true
 * globCouldMatch('git push*', 'git log'); // false
 */
export function globCouldMatch(pattern: string, prefix: string): boolean {
  // The positions in the pattern reachable after each character, a `*` able to stay or be skipped.
  const close = (states: Set<number>) => {
    for (const at of states) if (pattern[at] === '*') states.add(at + 1);
    return states;
  };
  let states = close(new Set([0]));
  for (const c of prefix) {
    const next = new Set<number>();
    for (const at of states) {
      if (pattern[at] === '*') next.add(at);
      else if (at < pattern.length && pattern[at] === c) next.add(at + 1);
    }
    states = close(next);
    if (states.size === 0) return false;
  }
  return true;
}
