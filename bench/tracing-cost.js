// The cost of tracing (#20): the Runner with tracing off, and on with a no-op exporter through
// agentctl's own tracer provider and through a caller's TracerProvider. Two workloads, each subject
// in its own fresh process, rounds interleaved, ratios taken round by round:
// - loop: the 50-step tool loop of core-loop.js with the zero-latency model; wall-clock AND CPU time
//   (process.cpuUsage, all threads) per step. Each timed sample ends with a flush, so every span of
//   its runs is made, processed and handed to the exporter inside the timed window.
// - concurrent: 1,000 runs in flight × 5 steps (as concurrent-runs.js): runs/s and peak RSS.
// "Tracing off" is taken two ways: @agentctl/tracing never imported (the child never loads it: what
// `agentctl run` without tracing runs), and imported but not started (the ratio between the two is
// what tracing costs when it is off). Every child checks that the exporter was handed every span
// (none dropped). BENCH_TRACING_PARTS=1 adds five subjects that take "tracing on" apart (a run
// observer doing nothing; the clock read where span times are taken; the least records a span
// needs, kept in batches; agentctl's span records made and dropped; agentctl's rows written and
// never made into spans). Run after a build:
//   pnpm build && node bench/tracing-cost.js
// Prints two tables and writes bench/results/tracing-cost.json.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gc, median, mib, printTable, writeResult } from './lib/report.js';
import { childKey, interleavedRounds, pairedRatio, showSpread, spread } from './lib/rounds.js';
import { startRssSampler } from './lib/rss-sampler.js';
import { TRACING_PARTS } from './lib/tracing-parts.js';
import { executions } from './lib/workload.js';

const KEYS = ['tracingNever', 'tracingOff', ...TRACING_PARTS, 'tracingOn', 'tracingOnApi'];
// Subjects that make no span.
const UNTRACED = new Set(['tracingNever', 'tracingOff', 'observerOnly', 'clockOnly', 'leastRecords']);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOP_STEPS = 50;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 500);
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 1500);
const SAMPLE_MS = 5;
const MIN_SAMPLES = 10;
const IN_FLIGHT = 1000;
const CONCURRENT_STEPS = 5;
const BATCHES = 3;

// The subject of a child and the count of spans handed to its exporter: the never-imported
// subject is the Runner subject itself, and its process never loads @agentctl/tracing.
async function loadSubject(key) {
  if (key === 'tracingNever') {
    // Imported here, in the child: the parent (run without the bundle's condition) loads no core.
    const runner = (await import('./lib/subjects.js')).SUBJECTS.runner;
    const subject = {
      label: 'agentctl Runner, @agentctl/tracing never imported',
      run: runner.run,
      async flush() {},
    };
    return { subject, exported: { spans: 0 }, spansPerRun: () => 0 };
  }
  const { exported, spansPerRun, TRACING_SUBJECTS } = await import('./lib/tracing-subjects.js');
  return { subject: TRACING_SUBJECTS[key], exported, spansPerRun };
}

// Spans the exporter must have been handed for `runs` runs (none for an untraced subject).
function checkSpans(key, loaded, runs, steps, before) {
  const expected = UNTRACED.has(key) ? 0 : runs * loaded.spansPerRun(steps);
  const got = loaded.exported.spans - before;
  if (got !== expected) throw new Error(`${key}: the exporter was handed ${got} spans, expected ${expected}`);
}

async function loopChild(key) {
  const loaded = await loadSubject(key);
  const { subject, exported } = loaded;
  const warmEnd = performance.now() + WARMUP_MS;
  while (performance.now() < warmEnd) await subject.run(LOOP_STEPS);
  await subject.flush();
  // A sample runs enough conversations to last SAMPLE_MS or so, sized once the code is warm.
  let t = performance.now();
  await subject.run(LOOP_STEPS);
  await subject.flush();
  const batch = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(performance.now() - t, 0.001)));
  gc();
  const wall = [];
  let runs = 0;
  const executed = executions.count;
  const spans = exported.spans;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + BUDGET_MS;
  while (performance.now() < end || wall.length < MIN_SAMPLES) {
    t = performance.now();
    for (let i = 0; i < batch; i++) await subject.run(LOOP_STEPS);
    await subject.flush();
    wall.push(((performance.now() - t) * 1000) / batch / LOOP_STEPS);
    runs += batch;
  }
  const used = process.cpuUsage(cpu);
  const steps = runs * LOOP_STEPS;
  if (executions.count - executed !== steps)
    throw new Error(`${key}: ${executions.count - executed} tool executions for ${steps} steps`);
  checkSpans(key, loaded, runs, LOOP_STEPS, spans);
  return {
    key,
    label: subject.label,
    runs,
    usPerStep: median(wall),
    cpuUsPerStep: (used.user + used.system) / steps,
    wallUsPerStep: ((performance.now() - started) * 1000) / steps,
  };
}

async function concurrentChild(key) {
  const sampler = startRssSampler(2);
  const loaded = await loadSubject(key);
  const { subject, exported } = loaded;
  const batch = async () => {
    const executed = executions.count;
    const spans = exported.spans;
    const t = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => subject.run(CONCURRENT_STEPS)));
    await subject.flush();
    const ms = performance.now() - t;
    if (executions.count - executed !== IN_FLIGHT * CONCURRENT_STEPS)
      throw new Error(`${key}: tool executions missing`);
    checkSpans(key, loaded, IN_FLIGHT, CONCURRENT_STEPS, spans);
    return ms;
  };
  await batch();
  const times = [];
  for (let i = 0; i < BATCHES; i++) {
    gc();
    times.push(await batch());
  }
  const { peakBytes } = await sampler.stop();
  return {
    key,
    label: subject.label,
    runsPerSecond: median(times.map((ms) => (IN_FLIGHT * 1000) / ms)),
    peakRssMiB: mib(peakBytes),
  };
}

// What a subject is compared with: tracing off is compared with @agentctl/tracing never imported
// (what off costs), everything else with tracing off (what tracing costs when it is on).
const baseOf = (key) => (key === 'tracingNever' || key === 'tracingOff' ? 'tracingNever' : 'tracingOff');
const BASE_NOTE = 'base: never imported for tracing off, tracing off for the others';

/** Runs both workloads (one child process per subject per round), prints the tables and writes the JSON. */
export async function main() {
  const script = fileURLToPath(import.meta.url);
  const loop = interleavedRounds(script, KEYS, ROUNDS, ['loop']);
  const of = (rounds, key, field) => rounds[key].map((r) => r[field]);
  const loopResults = KEYS.map((key) => ({
    key,
    label: loop[key][0].label,
    usPerStep: spread(of(loop, key, 'usPerStep')),
    cpuUsPerStep: spread(of(loop, key, 'cpuUsPerStep')),
    wallVsOff: pairedRatio(of(loop, key, 'usPerStep'), of(loop, baseOf(key), 'usPerStep')),
    cpuVsOff: pairedRatio(of(loop, key, 'cpuUsPerStep'), of(loop, baseOf(key), 'cpuUsPerStep')),
    perRound: loop[key],
  }));
  printTable(
    `tracing cost, ${LOOP_STEPS}-step tool loop, zero-latency model (flush inside the timed window; median (min–max) over ${ROUNDS} interleaved rounds; ratios round by round; ${BASE_NOTE})`,
    ['subject', 'wall µs/step', 'CPU µs/step', 'wall ÷ base', 'CPU ÷ base'],
    loopResults.map((r) => [
      r.label,
      showSpread(r.usPerStep),
      showSpread(r.cpuUsPerStep),
      showSpread(r.wallVsOff, '×'),
      showSpread(r.cpuVsOff, '×'),
    ]),
  );
  const concurrent = interleavedRounds(script, KEYS, ROUNDS, ['concurrent']);
  const concurrentResults = KEYS.map((key) => ({
    key,
    label: concurrent[key][0].label,
    runsPerSecond: spread(of(concurrent, key, 'runsPerSecond'), 0),
    peakRssMiB: spread(of(concurrent, key, 'peakRssMiB'), 1),
    rateVsOff: pairedRatio(
      of(concurrent, key, 'runsPerSecond'),
      of(concurrent, baseOf(key), 'runsPerSecond'),
    ),
    rssVsOff: pairedRatio(of(concurrent, key, 'peakRssMiB'), of(concurrent, baseOf(key), 'peakRssMiB')),
    perRound: concurrent[key],
  }));
  printTable(
    `tracing cost, ${IN_FLIGHT} runs in flight × ${CONCURRENT_STEPS} steps (flush inside the timed window; median (min–max) over ${ROUNDS} interleaved rounds; ${BASE_NOTE})`,
    ['subject', 'runs/s', 'runs/s ÷ base', 'peak RSS MiB', 'RSS ÷ base'],
    concurrentResults.map((r) => [
      r.label,
      showSpread(r.runsPerSecond),
      showSpread(r.rateVsOff, '×'),
      showSpread(r.peakRssMiB),
      showSpread(r.rssVsOff, '×'),
    ]),
  );
  // One summary row per figure, against its base.
  const row = (workload, r, metric, spreadOf, ratio) => ({
    workload,
    subject: r.label,
    key: r.key,
    metric,
    value: spreadOf.median,
    spread: spreadOf,
    ratio,
    baseline: r.key === 'tracingNever',
    base: baseOf(r.key),
  });
  const loopWorkload = `tool loop, ${LOOP_STEPS} steps`;
  const concurrentWorkload = `${IN_FLIGHT} in flight × ${CONCURRENT_STEPS} steps`;
  const summary = [
    ...loopResults.flatMap((r) => [
      row(loopWorkload, r, 'µs/step', r.usPerStep, r.wallVsOff),
      row(loopWorkload, r, 'CPU µs/step', r.cpuUsPerStep, r.cpuVsOff),
    ]),
    ...concurrentResults.flatMap((r) => [
      row(concurrentWorkload, r, 'runs/s', r.runsPerSecond, r.rateVsOff),
      row(concurrentWorkload, r, 'peak RSS MiB', r.peakRssMiB, r.rssVsOff),
    ]),
  ];
  return writeResult('tracing-cost', summary, {
    rounds: ROUNDS,
    loop: loopResults,
    concurrent: concurrentResults,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = childKey();
  if (key) {
    const mode = process.argv.at(-1);
    console.log(JSON.stringify(mode === 'concurrent' ? await concurrentChild(key) : await loopChild(key)));
  } else await main();
}
