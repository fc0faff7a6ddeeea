import type { ApprovalMode } from './approval-policy.js';
import { globMatcher } from './approval-rule.js';

// Among patterns that match equally closely, the one that asks more wins.
const STRICTNESS: Record<ApprovalMode, number> = { never: 0, 'once-per-session': 1, always: 2 };

/**
 * The mode that `modes` (tool name or `*` pattern -> mode) gives each of `names`, tried in order:
 * an exact name wins, then the matching pattern with the most characters besides `*`
 * (`write_*` over `*`, whatever their order), then, on a tie, the mode that asks more.
 * Undefined when nothing matches.
 *
 * @example
 * approvalModeFor({ '*': 'never', 'write_*': 'always' }, ['write_file']); // 'always'
 */
export function approvalModeFor(
  modes: Readonly<Record<string, ApprovalMode>>,
  names: readonly string[],
): ApprovalMode | undefined {
  return approvalModesOf(modes)(names);
}

/** {@link approvalModeFor} with the patterns compiled once: for a policy asked on every call. */
export function approvalModesOf(
  modes: Readonly<Record<string, ApprovalMode>>,
): (names: readonly string[]) => ApprovalMode | undefined {
  const patterns = Object.entries(modes)
    .filter(([pattern]) => pattern.includes('*'))
    .map(([pattern, mode]) => ({
      match: globMatcher(pattern),
      weight: pattern.replaceAll('*', '').length,
      mode,
    }));
  return (names) => {
    for (const name of names) if (Object.hasOwn(modes, name)) return modes[name];
    let best: (typeof patterns)[number] | undefined;
    for (const pattern of patterns) {
      if (!names.some((name) => pattern.match(name))) continue;
      const { weight, mode } = pattern;
      if (
        !best ||
        weight > best.weight ||
        (weight === best.weight && STRICTNESS[mode] > STRICTNESS[best.mode])
      )
        best = pattern;
    }
    return best?.mode;
  };
}
