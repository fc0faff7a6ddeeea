// Instructions per step, counted by valgrind's cachegrind: a figure other processes on the machine
// do not move, where wall-clock and CPU time on a shared machine swing by tens of percent. Each
// subject runs the 50-step tool loop of core-loop.js (zero-latency model) in its own process, twice:
// LOW runs and HIGH runs; the difference of the two counts ÷ the (HIGH − LOW) × 50 extra steps is
// what a step costs once the code is warm (start-up, loading and the first compilations cancel out).
// Node runs with V8's --single-threaded: no compiler or collector threads, whose timing otherwise
// made two counts of the same code differ by up to 40 % (session 10); with it, by under 0.5 %. What
// the background threads would have done is done on the main thread and counted. It counts
// instructions, not their cost: cache misses and a collector's waits are not in it, so it complements
// tracing-cost.js and core-loop.js, it does not replace them. Needs valgrind (skipped without it);
// run only when named (slow: minutes under valgrind):
//   pnpm build && node bench/run.js instructions      or      node bench/instructions.js
// BENCH_INSTRUCTIONS_RUNS=LOW,HIGH (default 300,1300); BENCH_INSTRUCTIONS_KEYS=KEY,... only those subjects
// (and their bases). BENCH_TRACING_PARTS=1 adds tracing-cost.js's
// parts of "tracing on" (an observer doing nothing, the two lower bounds, records made and dropped),
// each against tracing off. Writes bench/results/instructions.json.
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CORE_CONDITION } from './lib/core.js';
import { printTable, round, writeResult } from './lib/report.js';
import { childKey } from './lib/rounds.js';
import { PART_LABELS, TRACING_PARTS } from './lib/tracing-parts.js';

const STEPS = 50;
const [LOW, HIGH] = (process.env.BENCH_INSTRUCTIONS_RUNS ?? '300,1300').split(',').map(Number);
// Tracing off is imported and not started; "never imported" is the Runner alone.
const ALL_KEYS = ['runner', 'agent', 'tracingOff', ...TRACING_PARTS, 'tracingOn'];
const BASE = {
  runner: 'runner',
  agent: 'runner',
  tracingOff: 'runner',
  tracingOn: 'tracingOff',
  ...Object.fromEntries(TRACING_PARTS.map((key) => [key, 'tracingOff'])),
};
// BENCH_INSTRUCTIONS_KEYS=tracingOn,... counts only those subjects and their bases.
const ASKED = process.env.BENCH_INSTRUCTIONS_KEYS?.split(',');
const wanted = new Set(ASKED ?? ALL_KEYS);
for (const key of [...wanted])
  for (let base = BASE[key]; base && !wanted.has(base); base = BASE[base]) wanted.add(base);
const KEYS = ALL_KEYS.filter((key) => wanted.has(key));

// In the child: `runs` conversations of 50 steps, then every span handed to the exporter.
async function child(key, runs) {
  let subject;
  if (key === 'runner' || key === 'agent') subject = (await import('./lib/subjects.js')).SUBJECTS[key];
  else subject = (await import('./lib/tracing-subjects.js')).TRACING_SUBJECTS[key];
  for (let i = 0; i < runs; i++) await subject.run(STEPS);
  await subject.flush?.();
}

// Instructions of one child process under cachegrind.
function count(key, runs) {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null'];
    const proc = spawn(
      'valgrind',
      [...args, process.execPath, '--single-threaded', CORE_CONDITION, script, '--child', key, String(runs)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    proc.stderr.on('data', (chunk) => {
      err += chunk;
    });
    proc.on('close', (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(err);
      if (code !== 0 || !refs) reject(new Error(`${key} × ${runs}: exit ${code}\n${err.slice(-2000)}`));
      else resolve(Number(refs[1].replaceAll(',', '')));
    });
  });
}

// Runs the jobs two at a time (the machine's cores).
async function inPairs(jobs) {
  const results = [];
  for (let i = 0; i < jobs.length; i += 2)
    results.push(...(await Promise.all(jobs.slice(i, i + 2).map((j) => j()))));
  return results;
}

/** Counts every subject's instructions per step, prints the table and writes the JSON. */
export async function main() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log('instructions: valgrind not found, skipped');
    return;
  }
  const jobs = KEYS.flatMap((key) => [LOW, HIGH].map((runs) => () => count(key, runs)));
  const counts = await inPairs(jobs);
  const perStep = Object.fromEntries(
    KEYS.map((key, i) => [key, (counts[2 * i + 1] - counts[2 * i]) / ((HIGH - LOW) * STEPS)]),
  );
  const labels = {
    runner: 'agentctl Runner',
    agent: 'agentctl agent.run',
    tracingOff: 'Runner, @agentctl/tracing imported, off',
    tracingOn: 'Runner, tracing on (no-op exporter)',
    ...PART_LABELS,
  };
  const rows = KEYS.map((key) => ({
    key,
    subject: labels[key],
    instructionsPerStep: Math.round(perStep[key]),
    base: BASE[key],
    ratio: key === BASE[key] ? 1 : round(perStep[key] / perStep[BASE[key]], 3),
  }));
  printTable(
    `instructions per step, ${STEPS}-step tool loop (cachegrind; (${HIGH} runs − ${LOW} runs) ÷ ${(HIGH - LOW) * STEPS} steps)`,
    ['subject', 'instructions/step', 'base', '÷ base'],
    rows.map((r) => [r.subject, r.instructionsPerStep, labels[r.base], `${r.ratio}×`]),
  );
  writeResult(
    'instructions',
    rows.map((r) => ({
      workload: `tool loop, ${STEPS} steps (cachegrind)`,
      subject: r.subject,
      key: r.key,
      metric: 'instructions/step',
      value: r.instructionsPerStep,
      ratio: r.ratio,
      baseline: r.key === 'runner',
      base: r.base,
    })),
    {
      low: LOW,
      high: HIGH,
      counts: Object.fromEntries(KEYS.map((k, i) => [k, [counts[2 * i], counts[2 * i + 1]]])),
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = childKey();
  if (key) await child(key, Number(process.argv[process.argv.indexOf('--child') + 2]));
  else await main();
}
