// The 50-step tool loop with a zero-latency model: µs per step for agentctl, the peers and the
// hand-written floor. Every subject runs in its own fresh process, in interleaved rounds (A B C,
// A B C, ...), so no subject pays for another's garbage; ratios are taken round by round. Run after
// a build:
//   pnpm build && node bench/core-loop.js
// Prints a table and writes bench/results/core-loop.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadSubject, subjectKeys } from './lib/load-subject.js';
import { gc, median, printTable, round, writeResult } from './lib/report.js';
import { childKey, interleavedRounds, pairedRatio, showSpread, spread } from './lib/rounds.js';
import { executions } from './lib/workload.js';

const STEPS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_MIN_MS = Number(process.env.BENCH_WARMUP_MS ?? 1000);
const WARMUP_RUNS = Number(process.env.BENCH_WARMUP_RUNS ?? 60);
const WARMUP_MAX_MS = Number(process.env.BENCH_WARMUP_MAX_MS ?? 30000);
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 1000);
const WINDOW_MS = 250; // warm-up runs in windows this long (its CPU µs/step per window is reported)
// One sample runs enough conversations to last this long: GC is amortised in it, and on a loaded
// machine it spans several scheduler time slices, as a peer's sample (one conversation of 50 steps
// takes it 50-200 ms) always does. With 5 ms samples the median picked agentctl's samples that
// were never preempted while every peer sample was: wall figures were not taken the same way.
const SAMPLE_MS = 100;
const MIN_SAMPLES = 10; // the budget is extended until there are this many

// CPU time of the whole process (every thread: the collector's helpers too), in µs.
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** Runs `count` conversations; their wall and CPU µs per step. */
async function timed(subject, count) {
  const cpu = cpuNow();
  const t = performance.now();
  for (let i = 0; i < count; i++) await subject.run(STEPS);
  // A traced subject hands its last spans to the exporter before the clock stops.
  await subject.flush?.();
  const wallUs = (performance.now() - t) * 1000;
  return {
    wallUs: wallUs / count / STEPS,
    cpuUs: (cpuNow() - cpu) / count / STEPS,
    msPerRun: wallUs / 1000 / count,
  };
}

// Warm-up: at least WARMUP_MIN_MS and at least WARMUP_RUNS conversations, the same number for every
// subject. V8 optimises code after enough calls, not after enough time: 500 ms was ~2,000
// conversations for agentctl but 3 for AI SDK 7, which then measured cold (its CPU µs/step falls
// from ~2,000 to ~450 over its first ~50 conversations on this machine). WARMUP_MAX_MS bounds it.
async function warmUp(subject) {
  const started = performance.now();
  const windows = [];
  let runs = 0;
  let msPerRun = Infinity;
  for (;;) {
    const elapsed = performance.now() - started;
    if (elapsed >= WARMUP_MAX_MS || (elapsed >= WARMUP_MIN_MS && runs >= WARMUP_RUNS)) break;
    const count = Number.isFinite(msPerRun)
      ? Math.max(1, Math.ceil(WINDOW_MS / Math.max(msPerRun, 0.001)))
      : 1;
    const window = await timed(subject, count);
    runs += count;
    msPerRun = window.msPerRun;
    windows.push(window.cpuUs);
  }
  return { ms: performance.now() - started, runs, msPerRun, windows: windows.map((x) => round(x, 1)) };
}

// Time this process spent runnable but waiting for a processor (Linux): load from other processes
// shows here, not as work; where the file is missing the share is not reported.
function runQueueWaitMs() {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return undefined;
  }
}

// In the child: warm up (see warmUp), collect garbage, then time samples
// of `batch` conversations until the budget is spent; the figures are the median sample's wall and
// CPU µs per step.
async function child(key) {
  const subject = await loadSubject(key);
  const warm = await warmUp(subject);
  // Sized from the warm rate, not the first cold run, so every subject's sample lasts ~SAMPLE_MS.
  const batch = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(warm.msPerRun, 0.001)));
  gc();
  const wall = [];
  const cpu = [];
  const before = executions.count;
  const waitBefore = runQueueWaitMs();
  const t = performance.now();
  let runs = 0;
  const end = t + BUDGET_MS;
  while (performance.now() < end || wall.length < MIN_SAMPLES) {
    const sample = await timed(subject, batch);
    wall.push(sample.wallUs);
    cpu.push(sample.cpuUs);
    runs += batch;
  }
  const measuredMs = performance.now() - t;
  const executed = executions.count - before;
  if (executed !== runs * STEPS) throw new Error(`${key}: ${executed} tool executions for ${runs} runs`);
  const waitAfter = runQueueWaitMs();
  return {
    key,
    label: subject.label,
    runs,
    batch,
    samples: wall.length,
    usPerStep: median(wall),
    cpuUsPerStep: median(cpu),
    warmupMs: round(warm.ms, 0),
    warmupRuns: warm.runs,
    warmupCpuUsPerStep: warm.windows,
    runQueueWait: waitBefore === undefined ? undefined : round((waitAfter - waitBefore) / measuredMs, 3),
  };
}

/** Runs the benchmark (one child process per subject per round), prints its table and writes its JSON. */
export async function main() {
  const { keys, skipped } = subjectKeys();
  for (const reason of skipped) console.log(`peer skipped: ${reason}`);
  const rounds = interleavedRounds(fileURLToPath(import.meta.url), keys, ROUNDS);
  const figures = (key) => rounds[key].map((r) => r.usPerStep);
  const cpuFigures = (key) => rounds[key].map((r) => r.cpuUsPerStep);
  const hasAi7 = keys.includes('ai7');
  const results = keys.map((key) => ({
    key,
    label: rounds[key][0].label,
    usPerStep: spread(figures(key)),
    cpuUsPerStep: spread(cpuFigures(key)),
    perRound: rounds[key].map((r) => ({
      usPerStep: round(r.usPerStep, 2),
      cpuUsPerStep: round(r.cpuUsPerStep, 2),
      warmupMs: r.warmupMs,
      runQueueWait: r.runQueueWait,
    })),
    warmupMs: spread(
      rounds[key].map((r) => r.warmupMs),
      0,
    ),
    vsFloor: pairedRatio(figures(key), figures('floor')),
    vsAi7: hasAi7 ? pairedRatio(figures(key), figures('ai7')) : undefined,
    cpuVsAi7: hasAi7 ? pairedRatio(cpuFigures(key), cpuFigures('ai7')) : undefined,
    vsTracingOff: key.startsWith('tracing') ? pairedRatio(figures(key), figures('tracingOff')) : undefined,
    cpuVsTracingOff: key.startsWith('tracing')
      ? pairedRatio(cpuFigures(key), cpuFigures('tracingOff'))
      : undefined,
  }));
  const waits = (key) => rounds[key].map((r) => r.runQueueWait).filter((w) => w !== undefined);
  printTable(
    `core loop: ${STEPS}-step tool loop, zero-latency model (each subject warmed up for the same number of conversations, then its median sample of wall and CPU µs/step in a fresh process; median (min–max) over ${ROUNDS} interleaved rounds; ratios taken round by round)`,
    [
      'subject',
      'µs/step',
      'CPU µs/step',
      '÷ floor',
      '÷ AI SDK 7',
      'CPU ÷ AI SDK 7',
      '÷ tracing off',
      'CPU ÷ tracing off',
      'warm-up s',
      'waiting for a CPU',
    ],
    results.map((r) => [
      r.label,
      showSpread(r.usPerStep),
      showSpread(r.cpuUsPerStep),
      showSpread(r.vsFloor, '×'),
      r.vsAi7 ? showSpread(r.vsAi7, '×') : '-',
      r.cpuVsAi7 ? showSpread(r.cpuVsAi7, '×') : '-',
      r.vsTracingOff ? showSpread(r.vsTracingOff, '×') : '-',
      r.cpuVsTracingOff ? showSpread(r.cpuVsTracingOff, '×') : '-',
      showSpread(
        spread(
          rounds[r.key].map((x) => x.warmupMs / 1000),
          1,
        ),
      ),
      waits(r.key).length
        ? showSpread(
            spread(
              waits(r.key).map((w) => w * 100),
              0,
            ),
            '%',
          )
        : '-',
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
    cpu: r.cpuUsPerStep,
    cpuVsAi7: r.cpuVsAi7,
    cpuVsTracingOff: r.cpuVsTracingOff,
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
