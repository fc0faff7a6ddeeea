// 1,000 runs in flight at once, 5 tool steps each, with the zero-latency model: runs per second and
// the process's peak RSS, for agentctl, the peers and the hand-written floor. Every subject runs in
// its own fresh process, in interleaved rounds (A B C, A B C, ...); ratios are taken round by round.
// Run after a build:
//   pnpm build && node bench/concurrent-runs.js
// Prints a table and writes bench/results/concurrent-runs.json.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { heapReadings } from './lib/heap-readings.js';
import { loadSubject, subjectKeys } from './lib/load-subject.js';
import { gc, median, mib, printTable, round, writeResult } from './lib/report.js';
import { childKey, interleavedRounds, pairedRatio, showSpread, spread } from './lib/rounds.js';
import { startRssSampler } from './lib/rss-sampler.js';
import { executions } from './lib/workload.js';

/** Runs in flight in a batch. */
export const IN_FLIGHT = 1000;
/** Tool steps of each run. */
export const STEPS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Timed batches of 1,000 runs in each process (BENCH_BATCHES). */
export const BATCHES = Number(process.env.BENCH_BATCHES ?? 3);
// BENCH_SUBJECTS=runner,ai7: only these subjects (and the floor, which every ratio is taken against).
const ONLY = process.env.BENCH_SUBJECTS?.split(',').map((key) => key.trim());

// In the child: the sampler starts (and has taken its first sample) before the subject's code is
// even loaded, so the peak RSS is the whole process's; one warm-up batch, then BATCHES timed ones
// (gc() before each), median runs/s and CPU time.
async function child(key) {
  const sampler = startRssSampler(2);
  await sampler.ready();
  const beforeLoading = process.memoryUsage.rss();
  const subject = await loadSubject(key);
  const loadedMiB = mib(process.memoryUsage.rss() - beforeLoading);
  const cpuTimes = [];
  const batch = async () => {
    const before = executions.count;
    const cpu = process.cpuUsage();
    const t = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => subject.run(STEPS)));
    // A traced subject hands its last spans to the exporter before the clock stops.
    await subject.flush?.();
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    cpuTimes.push((used.user + used.system) / 1000);
    const executed = executions.count - before;
    if (executed !== IN_FLIGHT * STEPS) {
      throw new Error(`${subject.label}: ${executed} tool executions, expected ${IN_FLIGHT * STEPS}`);
    }
    return ms;
  };
  await batch();
  cpuTimes.length = 0;
  const times = [];
  for (let i = 0; i < BATCHES; i++) {
    gc();
    times.push(await batch());
  }
  // Read before the sampler stops, as the last batch left the heap (heap-spaces.js reports them).
  const memory = heapReadings();
  const { peakBytes, samples } = await sampler.stop();
  return {
    key,
    label: subject.label,
    batchMs: times.map((ms) => round(ms, 1)),
    runsPerSecond: median(times.map((ms) => (IN_FLIGHT * 1000) / ms)),
    // CPU time of the whole process (every thread, the collector's included) per batch: steadier
    // than wall time on a shared machine, where a child waits for a processor part of the time.
    cpuMsPerBatch: round(median(cpuTimes), 1),
    peakRssMiB: mib(peakBytes),
    rssSamples: samples,
    loadedMiB,
    ...memory,
  };
}

/** Runs the benchmark (one child process per subject per round), prints its table and writes its JSON. */
export async function main() {
  const { keys: all, skipped } = subjectKeys();
  for (const reason of skipped) console.log(`peer skipped: ${reason}`);
  const keys = ONLY ? all.filter((key) => key === 'floor' || ONLY.includes(key)) : all;
  const rounds = interleavedRounds(fileURLToPath(import.meta.url), keys, ROUNDS);
  const rate = (key) => rounds[key].map((r) => r.runsPerSecond);
  const rss = (key) => rounds[key].map((r) => r.peakRssMiB);
  const cpu = (key) => rounds[key].map((r) => r.cpuMsPerBatch);
  const hasAi7 = keys.includes('ai7');
  const results = keys.map((key) => ({
    key,
    label: rounds[key][0].label,
    runsPerSecond: spread(rate(key), 0),
    peakRssMiB: spread(rss(key), 1),
    perRound: rounds[key],
    rateVsAi7: hasAi7 ? pairedRatio(rate(key), rate('ai7')) : undefined,
    rssVsAi7: hasAi7 ? pairedRatio(rss(key), rss('ai7')) : undefined,
    cpuMsPerBatch: spread(cpu(key), 1),
    // AI SDK 7's CPU time over this subject's, round by round: how many times less CPU a batch takes.
    cpuGainVsAi7: hasAi7 ? pairedRatio(cpu('ai7'), cpu(key)) : undefined,
    rateVsFloor: pairedRatio(rate(key), rate('floor')),
    rssVsFloor: pairedRatio(rss(key), rss('floor')),
  }));
  printTable(
    `concurrent runs: ${IN_FLIGHT} in flight × ${STEPS} steps (fresh process per subject per round; median (min–max) over ${ROUNDS} interleaved rounds; ratios taken round by round)`,
    [
      'subject',
      'runs/s',
      'runs/s ÷ AI SDK 7',
      'CPU ms/batch',
      'AI SDK 7 CPU ÷ this',
      'peak RSS MiB',
      'RSS ÷ AI SDK 7',
      'runs/s ÷ floor',
    ],
    results.map((r) => [
      r.label,
      showSpread(r.runsPerSecond),
      r.rateVsAi7 ? showSpread(r.rateVsAi7, '×') : '-',
      showSpread(r.cpuMsPerBatch),
      r.cpuGainVsAi7 ? showSpread(r.cpuGainVsAi7, '×') : '-',
      showSpread(r.peakRssMiB),
      r.rssVsAi7 ? showSpread(r.rssVsAi7, '×') : '-',
      showSpread(r.rateVsFloor, '×'),
    ]),
  );
  const workload = `${IN_FLIGHT} runs in flight × ${STEPS} steps`;
  const summary = results.flatMap((r) => [
    {
      workload,
      subject: r.label,
      key: r.key,
      metric: 'runs/s',
      value: r.runsPerSecond.median,
      spread: r.runsPerSecond,
      vsAi7: r.rateVsAi7,
      ratio: r.rateVsFloor,
      baseline: r.key === 'floor',
    },
    {
      workload,
      subject: r.label,
      key: r.key,
      metric: 'peak RSS MiB',
      value: r.peakRssMiB.median,
      spread: r.peakRssMiB,
      vsAi7: r.rssVsAi7,
      ratio: r.rssVsFloor,
      baseline: r.key === 'floor',
    },
  ]);
  return writeResult('concurrent-runs', summary, {
    inFlight: IN_FLIGHT,
    steps: STEPS,
    rounds: ROUNDS,
    results,
    peersSkipped: skipped,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = childKey();
  if (key) console.log(JSON.stringify(await child(key)));
  else await main();
}
