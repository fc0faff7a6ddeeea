// Where the peak RSS of concurrent-runs.js goes: its own child (1,000 runs in flight × 5 steps, one
// warm-up batch, gc() before each of 3 batches, the peak from its sampler) also reads what loading
// the subject added to the RSS, and the process's RSS and V8's heap spaces as the last batch ends
// (lib/heap-readings.js); this runs that child in interleaved rounds and reports those readings.
// Run after a build:
//   pnpm build && node bench/heap-spaces.js      BENCH_SUBJECTS=runner,ai7 to pick subjects
// Prints a table and writes bench/results/heap-spaces.json.
import { fileURLToPath } from 'node:url';
import { BATCHES, IN_FLIGHT, STEPS } from './concurrent-runs.js';
import { subjectKeys } from './lib/load-subject.js';
import { printTable, writeResult } from './lib/report.js';
import { interleavedRounds, showSpread, spread } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_SUBJECTS?.split(',').map((key) => key.trim());

const COLUMNS = [
  ['loadedMiB', 'loading it, RSS MiB'],
  ['peakRssMiB', 'peak RSS MiB'],
  ['rssMiB', 'RSS as it ends'],
  ['heapMiB', 'V8 heap MiB'],
  ['newSpaceMiB', 'new space'],
  ['oldSpaceMiB', 'old space'],
  ['codeSpaceMiB', 'code space'],
  ['largeObjectsMiB', 'large objects'],
  ['outsideHeapMiB', 'outside the heap'],
];

/** Runs every subject's child in interleaved rounds, prints the table and writes the JSON. */
export async function main() {
  const { keys: all } = subjectKeys();
  const keys = ONLY ? all.filter((key) => key === 'floor' || ONLY.includes(key)) : all;
  const script = fileURLToPath(new URL('./concurrent-runs.js', import.meta.url));
  const rounds = interleavedRounds(script, keys, ROUNDS);
  const results = keys.map((key) => ({
    key,
    label: rounds[key][0].label,
    ...Object.fromEntries(
      COLUMNS.map(([field]) => [
        field,
        spread(
          rounds[key].map((r) => r[field]),
          1,
        ),
      ]),
    ),
  }));
  printTable(
    `where the RSS of ${IN_FLIGHT} runs in flight × ${STEPS} steps goes, as the last of ${BATCHES} batches ends (MiB; median (min–max) over ${ROUNDS} interleaved rounds)`,
    ['subject', ...COLUMNS.map(([, title]) => title)],
    results.map((r) => [r.label, ...COLUMNS.map(([field]) => showSpread(r[field]))]),
  );
  writeResult(
    'heap-spaces',
    results.flatMap((r) =>
      ['peakRssMiB', 'oldSpaceMiB', 'newSpaceMiB'].map((field) => ({
        workload: `${IN_FLIGHT} in flight × ${STEPS} steps, as a batch ends`,
        subject: r.label,
        key: r.key,
        metric: `${COLUMNS.find(([f]) => f === field)[1]}`,
        value: r[field].median,
        spread: r[field],
        baseline: r.key === 'floor',
      })),
    ),
    { rounds: ROUNDS, results },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
