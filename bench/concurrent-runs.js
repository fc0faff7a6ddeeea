// 1,000 runs in flight at once, 5 tool steps each, with the zero-latency model: runs per second and
// the process's peak RSS, for agentctl beside the hand-written floor. Each subject runs in a fresh
// child process so its peak RSS is its own. Run after a build:
//   npx tsc -b && node bench/concurrent-runs.js
// Prints a table and writes bench/results/concurrent-runs.json.
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, mib, printTable, round, writeResult } from './lib/report.js';
import { startRssSampler } from './lib/rss-sampler.js';

const IN_FLIGHT = 1000;
const STEPS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

// In the child: the sampler starts before the subject's code is even loaded.
async function child(key) {
  const sampler = startRssSampler(2);
  const { SUBJECTS } = await import('./lib/subjects.js');
  const { executions } = await import('./lib/workload.js');
  // A peer's libraries load only in its own process, so they do not weigh on the others' RSS.
  const subject = SUBJECTS[key] ?? (await import('./lib/peer-subjects.js')).PEER_SUBJECTS[key];
  const round1 = async () => {
    const before = executions.count;
    const t = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => subject.run(STEPS)));
    const ms = performance.now() - t;
    const executed = executions.count - before;
    if (executed !== IN_FLIGHT * STEPS) {
      throw new Error(`${subject.label}: ${executed} tool executions, expected ${IN_FLIGHT * STEPS}`);
    }
    return ms;
  };
  const startRss = process.memoryUsage.rss();
  await round1(); // warm-up, counted in the peak RSS like everything else the process does
  const times = [];
  for (let i = 0; i < ROUNDS; i++) times.push(await round1());
  const { peakBytes, samples } = await sampler.stop();
  const runsPerSecond = times.map((ms) => (IN_FLIGHT * 1000) / ms);
  return {
    subject: key,
    label: subject.label,
    rounds: ROUNDS,
    toolExecutions: executions.count,
    roundMs: times.map((ms) => round(ms, 1)),
    runsPerSecond: Math.round(median(runsPerSecond)),
    peakRssMiB: mib(peakBytes),
    startRssMiB: mib(startRss),
    rssSamples: samples,
  };
}

/** Runs the benchmark (one child process per subject), prints its table and writes its JSON. */
export async function main() {
  const self = fileURLToPath(import.meta.url);
  const { PEER_SUBJECTS, skipped } = await import('./lib/peer-subjects.js');
  if (skipped) console.log(`peers skipped: ${skipped}`);
  const results = ['floor', 'agent', 'runner', ...Object.keys(PEER_SUBJECTS)].map((key) => {
    const out = execFileSync(process.execPath, ['--expose-gc', self, '--child', key], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').at(-1));
  });
  const floor = results[0];
  printTable(
    `concurrent runs: ${IN_FLIGHT} runs in flight × ${STEPS} steps (median of ${ROUNDS} rounds, fresh process per subject)`,
    ['subject', 'runs/s', '× floor', 'peak RSS MiB', 'RSS at start MiB', 'RSS samples'],
    results.map((r) => [
      r.label,
      r.runsPerSecond,
      round(r.runsPerSecond / floor.runsPerSecond, 3),
      r.peakRssMiB,
      r.startRssMiB,
      r.rssSamples,
    ]),
  );
  const summary = results.flatMap((r) => [
    {
      workload: `${IN_FLIGHT} runs in flight × ${STEPS} steps`,
      subject: r.label,
      metric: 'runs/s',
      value: r.runsPerSecond,
      baseline: r.subject === 'floor',
    },
    {
      workload: `${IN_FLIGHT} runs in flight × ${STEPS} steps`,
      subject: r.label,
      metric: 'peak RSS MiB',
      value: r.peakRssMiB,
      baseline: r.subject === 'floor',
    },
  ]);
  return writeResult('concurrent-runs', summary, {
    inFlight: IN_FLIGHT,
    steps: STEPS,
    results,
    peersSkipped: skipped,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--child');
  if (at > 0) console.log(JSON.stringify(await child(process.argv[at + 1])));
  else await main();
}
