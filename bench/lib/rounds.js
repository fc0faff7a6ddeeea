// Interleaved rounds, each subject in its own process: round 1 runs A, B, C (one fresh child process
// each), round 2 runs A, B, C again, and so on. Load from other processes on the machine then falls on
// every subject alike, no subject pays for another's garbage or memory, and a ratio between two
// subjects is taken within each round (pair by pair) before its median and min–max are reported.
import { execFileSync } from 'node:child_process';
import { CHILD_FLAGS } from './core.js';
import { median, round } from './report.js';

/**
 * Runs `node <CHILD_FLAGS> <script> --child <key> <...args>` for every key in every round, in order,
 * and returns `{ [key]: [figures of round 1, figures of round 2, ...] }`. The child prints its
 * figures as JSON on its last stdout line.
 */
export function interleavedRounds(script, keys, rounds, args = []) {
  const byKey = Object.fromEntries(keys.map((key) => [key, []]));
  for (let r = 0; r < rounds; r++) {
    for (const key of keys) {
      const out = execFileSync(process.execPath, [...CHILD_FLAGS, script, '--child', key, ...args], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      byKey[key].push(JSON.parse(out.trim().split('\n').at(-1)));
    }
  }
  return byKey;
}

/** Median and min–max of a list of figures: `{ median, min, max }`. */
export function spread(values, digits = 3) {
  return {
    median: round(median(values), digits),
    min: round(Math.min(...values), digits),
    max: round(Math.max(...values), digits),
  };
}

/** The ratio a/b taken round by round (pair by pair), as its median and min–max. */
export function pairedRatio(a, b, digits = 3) {
  if (a.length !== b.length) throw new Error('paired ratio over rounds of different lengths');
  return spread(
    a.map((x, i) => x / b[i]),
    digits,
  );
}

// Three significant figures or so: 1,234 / 123 / 12.3 / 1.23 / 0.123.
const sig = (x) => {
  const a = Math.abs(x);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return round(x, digits).toLocaleString('en-US', { maximumFractionDigits: digits });
};

/** A spread printed as "median (min–max)". */
export const showSpread = (s, suffix = '') => `${sig(s.median)}${suffix} (${sig(s.min)}–${sig(s.max)})`;

/** The value of the `--child <key>` argument, when this process is a child. */
export function childKey(argv = process.argv) {
  const at = argv.indexOf('--child');
  return at > 0 ? argv[at + 1] : undefined;
}
