// What decides the peak RSS of 1,000 runs in flight: the floor's workload (bench/lib/workload.js)
// with K KiB more kept alive by each run in flight and A KiB more allocated (short-lived) by each
// run, in the same child as concurrent-runs.js (RSS sampler first, one warm-up batch, gc() before
// each of 3 batches). A throwaway-sized model of V8's young generation, kept because it answers
// "would a cut of X KiB a run move the peak?" before anyone spends a day on the cut.
//   node bench/rss-model.js                       # the default grid, 3 interleaved rounds
//   RSS_MODEL_POINTS="0:0 10:47" node bench/rss-model.js
// Each run's extra bytes are chains of 56-byte objects (4 fields, Node 20 x64). The kept chain
// grows by 2K/5 KiB a tool step (K halfway through the run, as the Runner's 10.2 KiB is measured);
// the short-lived chain is A/6 KiB a model call, alive across that call's `await`s (as a framework's
// per-call objects are) and dropped after it. Run with --trace-gc-nvp in the child to count
// promotions and scavenges. RSS_MODEL_GARBAGE=sync: the short-lived bytes die before the call's
// first await (garbage of one synchronous stretch) instead of across it. RSS_MODEL_LOAD=core: the
// child imports @agentctl/core (as published, its bundle) first, as the Runner's child does.
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { CHILD_FLAGS, loadCore } from './lib/core.js';
import { gc, median, mib, printTable, round } from './lib/report.js';
import { startRssSampler } from './lib/rss-sampler.js';
import { executions, stepTool, zeroLatencyProvider } from './lib/workload.js';

const IN_FLIGHT = 1000;
const STEPS = 5;
const MODEL_CALLS = STEPS + 1;
const OBJECT_BYTES = 56;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// RSS_MODEL_GARBAGE=sync: the short-lived chain dies before the model call's first await instead.
const GARBAGE_DIES_AT_ONCE = process.env.RSS_MODEL_GARBAGE === 'sync';
const LOAD_CORE = process.env.RSS_MODEL_LOAD === 'core';
const model0 = zeroLatencyProvider(STEPS);
const POINTS = (process.env.RSS_MODEL_POINTS ?? '0:0 0:20 0:47 3:0 3:20 3:47 6:0 6:20 6:47 10:0 10:20 10:47')
  .split(/\s+/)
  .map((p) => p.split(':').map(Number));

function chain(bytes, tail = null) {
  let head = tail;
  for (let i = Math.round(bytes / OBJECT_BYTES); i > 0; i--) head = { a: head, b: i, c: null, d: null };
  return head;
}

// The floor loop of workload.js, plus the extra bytes.
async function modelRun(model, keepKiB, allocKiB) {
  const messages = [{ role: 'user', content: 'go' }];
  const toolCalls = [];
  let kept = null;
  const keepPerStep = (2 * keepKiB * 1024) / STEPS;
  const allocPerCall = (allocKiB * 1024) / MODEL_CALLS;
  for (let i = 0; i < MODEL_CALLS; i++) {
    let garbage = allocPerCall > 0 ? chain(allocPerCall) : null;
    if (GARBAGE_DIES_AT_ONCE) garbage = garbage?.b;
    let response;
    for await (const event of model.stream({ messages }))
      if (event.type === 'done') response = event.response;
    garbage = garbage?.b;
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    if (response.toolCalls.length === 0) return { text: response.content, toolCalls, kept, garbage };
    for (const call of response.toolCalls) {
      if (!Number.isInteger(call.arguments.n)) throw new Error(`bad arguments for ${call.name}`);
      const result = await stepTool(call.arguments);
      toolCalls.push({ id: call.id, result });
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: String(result) });
      if (keepPerStep > 0) kept = chain(keepPerStep, kept);
    }
  }
  throw new Error('step limit');
}

async function child(keepKiB, allocKiB) {
  const sampler = startRssSampler(2);
  await sampler.ready();
  // RSS_MODEL_LOAD=core: the child also imports @agentctl/core (its bundle) and makes one agent, as
  // the Runner's child does before its batches, though the model's runs never use it: what loading
  // agentctl's code adds beneath any way of running the workload.
  if (LOAD_CORE) (await loadCore()).createAgent({ name: 'unused', provider: model0 });
  const model = zeroLatencyProvider(STEPS);
  const cpuTimes = [];
  const batch = async () => {
    const before = executions.count;
    const cpu = process.cpuUsage();
    const t = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => modelRun(model, keepKiB, allocKiB)));
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    cpuTimes.push((used.user + used.system) / 1000);
    if (executions.count - before !== IN_FLIGHT * STEPS) throw new Error('missing tool executions');
    return ms;
  };
  await batch();
  cpuTimes.length = 0;
  const times = [];
  for (let i = 0; i < 3; i++) {
    gc();
    times.push(await batch());
  }
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]),
  );
  const { peakBytes } = await sampler.stop();
  return {
    runsPerSecond: median(times.map((ms) => (IN_FLIGHT * 1000) / ms)),
    cpuMs: median(cpuTimes),
    peakRssMiB: mib(peakBytes),
    newSpaceMiB: mib(spaces.new_space),
    oldSpaceMiB: mib(spaces.old_space),
  };
}

// Sums `promoted=` and counts scavenges over the whole child (4 batches of 1,000 runs).
function runChild(keepKiB, allocKiB) {
  const out = execFileSync(
    process.execPath,
    [
      ...CHILD_FLAGS,
      '--trace-gc-nvp',
      fileURLToPath(import.meta.url),
      '--child',
      String(keepKiB),
      String(allocKiB),
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  let promoted = 0;
  let scavenges = 0;
  let figures;
  for (const line of out.split('\n')) {
    if (line.startsWith('{')) figures = JSON.parse(line);
    else if (line.includes('gc=s ')) {
      scavenges++;
      promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    }
  }
  const runs = 4 * IN_FLIGHT;
  return { ...figures, promotedKiB: promoted / 1024 / runs, scavengesPerBatch: scavenges / 4 };
}

async function main() {
  const byPoint = POINTS.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, [k, a]] of POINTS.entries()) byPoint[i].push(runChild(k, a));
  }
  const med = (list, f, d = 1) => round(median(list.map(f)), d);
  const spreadOf = (list, f) => {
    const v = list.map(f);
    return `${round(median(v), 1)} (${round(Math.min(...v), 1)}–${round(Math.max(...v), 1)})`;
  };
  printTable(
    `rss model: floor + K KiB kept halfway / A KiB short-lived per run, ${IN_FLIGHT} in flight × ${STEPS} steps, median (min–max) over ${ROUNDS} rounds`,
    [
      'K kept',
      'A allocated',
      'peak RSS MiB',
      'new space MiB',
      'old space MiB',
      'promoted KiB/run',
      'scavenges/batch',
      'CPU ms/batch',
      'runs/s',
    ],
    POINTS.map(([k, a], i) => [
      k,
      a,
      spreadOf(byPoint[i], (x) => x.peakRssMiB),
      med(byPoint[i], (x) => x.newSpaceMiB),
      med(byPoint[i], (x) => x.oldSpaceMiB),
      med(byPoint[i], (x) => x.promotedKiB),
      med(byPoint[i], (x) => x.scavengesPerBatch),
      med(byPoint[i], (x) => x.cpuMs, 0),
      med(byPoint[i], (x) => x.runsPerSecond, 0),
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--child');
  if (at > 0)
    console.log(JSON.stringify(await child(Number(process.argv[at + 1]), Number(process.argv[at + 2]))));
  else await main();
}
