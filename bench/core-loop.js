// The 50-step tool loop with a zero-latency model: µs per step for agentctl, the peers and the
// hand-written floor. Every subject runs in its own fresh process, in interleaved rounds (A B C,
// A B C, ...), so no subject pays for another's garbage; ratios are taken round by round. Run after
// a build:
//   pnpm build && node bench/core-loop.js
// Prints a table and writes bench/results/core-loop.json.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadSubject, subjectKeys } from './lib/load-subject.js';
import { gc, median, printTable, round, writeResult } from './lib/report.js';
import { childKey, interleavedRounds, pairedRatio, showSpread, spread } from './lib/rounds.js';
import { executions } from './lib/workload.js';

const STEPS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 500);
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 1000);
const SAMPLE_MS = 5; // one sample runs enough conversations to last this long, so GC is amortised in it
const MIN_SAMPLES = 10;

// In the child: warm up (so nothing is measured while still being compiled), collect garbage, then
// time samples of `batch` conversations until the budget is spent; the figure is the median sample.
async function child(key) {
  const subject = await loadSubject(key);
  const warmEnd = performance.now() + WARMUP_MS;
  let t = performance.now();
  await subject.run(STEPS);
  const batch = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(performance.now() - t, 0.001)));
  while (performance.now() < warmEnd) await subject.run(STEPS);
  gc();
  const samples = [];
  const before = executions.count;
  let runs = 0;
  const end = performance.now() + BUDGET_MS;
  while (performance.now() < end || samples.length < MIN_SAMPLES) {
    t = performance.now();
    for (let i = 0; i < batch; i++) await subject.run(STEPS);
    // A traced subject hands its last spans to the exporter before the clock stops.
    await subject.flush?.();
    samples.push(((performance.now() - t) * 1000) / batch / STEPS);
    runs += batch;
  }
  const executed = executions.count - before;
  if (executed !== runs * STEPS) throw new Error(`${key}: ${executed} tool executions for ${runs} runs`);
  return { key, label: subject.label, runs, samples: samples.length, usPerStep: median(samples) };
}

/** Runs the benchmark (one child process per subject per round), prints its table and writes its JSON. */
export async function main() {
  const { keys, skipped } = subjectKeys();
  for (const reason of skipped) console.log(`peer skipped: ${reason}`);
  const rounds = interleavedRounds(fileURLToPath(import.meta.url), keys, ROUNDS);
  const figures = (key) => rounds[key].map((r) => r.usPerStep);
  const results = keys.map((key) => ({
    key,
    label: rounds[key][0].label,
    usPerStep: spread(figures(key)),
    perRound: figures(key).map((x) => round(x, 2)),
    vsFloor: pairedRatio(figures(key), figures('floor')),
    vsAi7: keys.includes('ai7') ? pairedRatio(figures(key), figures('ai7')) : undefined,
    vsTracingOff: key.startsWith('tracing') ? pairedRatio(figures(key), figures('tracingOff')) : undefined,
  }));
  printTable(
    `core loop: ${STEPS}-step tool loop, zero-latency model, µs/step (median sample in each fresh process; median (min–max) over ${ROUNDS} interleaved rounds; ratios taken round by round)`,
    ['subject', 'µs/step', '÷ floor', '÷ AI SDK 7', '÷ tracing off'],
    results.map((r) => [
      r.label,
      showSpread(r.usPerStep),
      showSpread(r.vsFloor, '×'),
      r.vsAi7 ? showSpread(r.vsAi7, '×') : '-',
      r.vsTracingOff ? showSpread(r.vsTracingOff, '×') : '-',
    ]),
  );
  const summary = results.map((r) => ({
    workload: `tool loop, ${STEPS} steps`,
    subject: r.label,
    key: r.key,
    metric: 'µs/step',
    value: r.usPerStep.median,
    spread: r.usPerStep,
    vsAi7: r.vsAi7,
    vsTracingOff: r.vsTracingOff,
    ratio: r.vsFloor,
    baseline: r.key === 'floor',
  }));
  return writeResult('core-loop', summary, { steps: STEPS, rounds: ROUNDS, results, peersSkipped: skipped });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = childKey();
  if (key) console.log(JSON.stringify(await child(key)));
  else await main();
}
