// The tool loop with a zero-latency model at 10, 50 and 100 steps: median µs per step, heap used,
// and growth with history, for agentctl beside the hand-written floor loop. Run after a build:
//   npx tsc -b && node bench/core-loop.js
// Prints a table and writes bench/results/core-loop.json.
import { pathToFileURL } from 'node:url';
import { PEER_SUBJECTS, skipped } from './lib/peer-subjects.js';
import { gc, median, percentile, printTable, round, writeResult } from './lib/report.js';
import { SUBJECTS as CORE_SUBJECTS } from './lib/subjects.js';
import { executions } from './lib/workload.js';

const STEPS = [10, 50, 100];
// The peers run in the same process and the same interleaved rounds when bench/peers is installed.
const SUBJECTS = { ...CORE_SUBJECTS, ...PEER_SUBJECTS };
const WARMUP_MS = 300;
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 1500);
const SAMPLE_MS = 5; // one sample runs enough conversations to last this long, so GC is amortised in it
const MIN_SAMPLES = 15;

// Samples every subject in turn (round-robin) so that load from other processes on the machine
// falls on all of them alike. Each sample runs `batch` conversations; wall and CPU time both count.
async function timeSteps(subjects, steps) {
  const cells = [];
  for (const subject of subjects) {
    const t = performance.now();
    await subject.run(steps);
    const batch = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(performance.now() - t, 0.001)));
    cells.push({ subject, batch, wall: [], cpu: [], runs: 0, elapsed: 0, executed: 0 });
  }
  const end = performance.now() + BUDGET_MS * subjects.length;
  while (performance.now() < end || cells[0].wall.length < MIN_SAMPLES) {
    for (const cell of cells) {
      const before = executions.count;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < cell.batch; i++) await cell.subject.run(steps);
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      cell.executed += executions.count - before;
      cell.elapsed += ms;
      cell.runs += cell.batch;
      cell.wall.push((ms * 1000) / cell.batch / steps);
      cell.cpu.push((cpu.user + cpu.system) / cell.batch / steps);
    }
  }
  return cells.map((cell) => {
    if (cell.executed !== cell.runs * steps) {
      throw new Error(
        `${cell.subject.label}: ${cell.executed} tool executions for ${cell.runs} runs of ${steps} steps`,
      );
    }
    return {
      runs: cell.runs,
      batch: cell.batch,
      samples: cell.wall.length,
      toolExecutions: cell.executed,
      medianUsPerStep: round(median(cell.wall), 2),
      p90UsPerStep: round(percentile(cell.wall, 90), 2),
      meanUsPerStep: round((cell.elapsed * 1000) / cell.runs / steps, 2),
      cpuMedianUsPerStep: round(median(cell.cpu), 2),
    };
  });
}

// Heap of one run: the peak above the baseline while it runs (sampled at every tool execution and at
// the end, before any GC) and what is still held after a full GC while its result is kept alive.
async function heapOf(subject, steps) {
  const peaks = [];
  const retained = [];
  for (let i = 0; i < 5; i++) {
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    executions.onExecute = () => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    const kept = await subject.run(steps);
    executions.onExecute = undefined;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    gc();
    retained.push(process.memoryUsage().heapUsed - base);
    peaks.push(peak - base);
    if (!kept) throw new Error('unreachable: keeps the result alive across the GC');
  }
  return { heapPeakKiB: round(median(peaks) / 1024, 0), heapRetainedKiB: round(median(retained) / 1024, 0) };
}

/** Runs the benchmark, prints its table and writes its JSON. */
export async function main() {
  if (skipped) console.log(`peers skipped: ${skipped}`);
  // Every subject at every length first, so no cell is measured while its code is still being compiled.
  for (const subject of Object.values(SUBJECTS)) {
    for (const steps of STEPS) {
      const end = performance.now() + WARMUP_MS;
      while (performance.now() < end) await subject.run(steps);
    }
  }
  const results = [];
  const entries = Object.entries(SUBJECTS);
  for (const steps of STEPS) {
    const times = await timeSteps(
      entries.map(([, subject]) => subject),
      steps,
    );
    for (const [i, [key, subject]] of entries.entries()) {
      const heap = await heapOf(subject, steps);
      results.push({ subject: key, label: subject.label, steps, ...times[i], ...heap });
    }
  }
  const at = (subject, steps) => results.find((r) => r.subject === subject && r.steps === steps);
  const growth = Object.fromEntries(
    Object.keys(SUBJECTS).map((s) => [s, round(at(s, 100).medianUsPerStep / at(s, 10).medianUsPerStep, 2)]),
  );
  printTable(
    `core loop: zero-latency model, one tool call per step (median of interleaved samples, ${BUDGET_MS} ms per cell)`,
    [
      'subject',
      'steps',
      'µs/step median',
      'p90',
      'mean',
      'CPU µs/step',
      '× floor',
      'heap peak KiB',
      'heap retained KiB',
    ],
    results.map((r) => [
      r.label,
      r.steps,
      r.medianUsPerStep,
      r.p90UsPerStep,
      r.meanUsPerStep,
      r.cpuMedianUsPerStep,
      round(r.medianUsPerStep / at('floor', r.steps).medianUsPerStep, 1),
      r.heapPeakKiB,
      r.heapRetainedKiB,
    ]),
  );
  console.log(
    `growth, µs/step at 100 steps ÷ at 10: ${Object.entries(growth)
      .map(([s, g]) => `${SUBJECTS[s].label} ${g}×`)
      .join(', ')}`,
  );
  const summary = [];
  for (const r of results) {
    summary.push({
      workload: `tool loop, ${r.steps} steps`,
      subject: r.label,
      metric: 'µs/step (median)',
      value: r.medianUsPerStep,
      baseline: r.subject === 'floor',
    });
    if (r.steps === 50) {
      summary.push({
        workload: 'tool loop, 50 steps',
        subject: r.label,
        metric: 'heap peak KiB',
        value: r.heapPeakKiB,
        baseline: r.subject === 'floor',
      });
    }
  }
  for (const [s, g] of Object.entries(growth)) {
    summary.push({
      workload: 'tool loop growth',
      subject: SUBJECTS[s].label,
      metric: 'µs/step 100 ÷ 10',
      value: g,
    });
  }
  return writeResult('core-loop', summary, { results, growth, peersSkipped: skipped });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
