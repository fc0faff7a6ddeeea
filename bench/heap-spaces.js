// Where the peak RSS of concurrent-runs.js goes: the same child (1,000 runs in flight × 5 steps, one
// warm-up batch, gc() before each of 3 batches, the peak from the same sampler), with the process's
// RSS and V8's heap spaces as the last batch ends, before any collection (a space's physical size
// then is about its size at the peak: spaces grow during a batch and shrink at a collection), and
// what loading the subject added to the RSS. Each subject in its own process, rounds interleaved. Run after a build:
//   pnpm build && node bench/heap-spaces.js      BENCH_SUBJECTS=runner,ai7 to pick subjects
// Prints a table and writes bench/results/heap-spaces.json.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { loadSubject, subjectKeys } from './lib/load-subject.js';
import { gc, mib, printTable, writeResult } from './lib/report.js';
import { childKey, interleavedRounds, showSpread, spread } from './lib/rounds.js';
import { startRssSampler } from './lib/rss-sampler.js';

const IN_FLIGHT = 1000;
const STEPS = 5;
const BATCHES = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_SUBJECTS?.split(',').map((key) => key.trim());

// The physical size of a heap space in MiB.
function physical(name) {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === name);
  return space ? mib(space.physical_space_size) : 0;
}

// As concurrent-runs.js's child, step for step (the sampler first, no collection forced before the
// warm-up batch: a gc() there moves V8's heap limits and with them every figure below), plus the
// readings.
async function child(key) {
  const sampler = startRssSampler(2);
  await sampler.ready();
  const before = process.memoryUsage.rss();
  const subject = await loadSubject(key);
  const loadedMiB = mib(process.memoryUsage.rss() - before);
  // The results are dropped inside the batch, as concurrent-runs.js drops them: a batch that handed
  // them back would keep them (in the awaiting frame) through the next gc() and the next batch, which
  // moved AI SDK 7's peak from 175–193 MiB to 222–235.
  const batch = async () => {
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => subject.run(STEPS)));
  };
  await batch();
  for (let i = 0; i < BATCHES; i++) {
    gc();
    await batch();
  }
  const rss = process.memoryUsage.rss();
  const heap = getHeapStatistics();
  const { peakBytes } = await sampler.stop();
  return {
    key,
    label: subject.label,
    loadedMiB,
    peakRssMiB: mib(peakBytes),
    rssMiB: mib(rss),
    heapMiB: mib(heap.total_physical_size),
    newSpaceMiB: physical('new_space'),
    oldSpaceMiB: physical('old_space'),
    codeSpaceMiB: physical('code_space'),
    largeObjectsMiB: physical('large_object_space') + physical('new_large_object_space'),
    outsideHeapMiB: mib(rss - heap.total_physical_size),
  };
}

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
  const rounds = interleavedRounds(fileURLToPath(import.meta.url), keys, ROUNDS);
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

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = childKey();
  if (key) console.log(JSON.stringify(await child(key)));
  else await main();
}
