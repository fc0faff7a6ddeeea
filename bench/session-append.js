// Cost of one FileSessionStore.append as the session grows (10 / 1,000 / 10,000 / 50,000 events),
// and of creating a session. Each subject runs in its own process, in interleaved rounds (subject
// order rotates each round); a subject's figure in a round is the median of its appends. Prints the
// median over rounds with the min–max, and the ratio of each length to 10 events, taken round by round.
// Run after a build: `pnpm build && node bench/session-append.js` (writes bench/results/session-append.json).
// Appends and the first create are durable (fsync, the default); `create, durable: false` skips the fsyncs.
// Knobs: BENCH_ROUNDS (default 3), BENCH_APPENDS (per subject and round, default 200).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSessionStore } from '../packages/store-file/dist/index.js';
import { CHILD_FLAGS } from './lib/core.js';
import { median, printTable, round, writeResult } from './lib/report.js';
import { benchEvent as event, sessionLogText, timeEach } from './lib/store-workload.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 200);
const LENGTHS = [10, 1_000, 10_000, 50_000];
const TARGET = 'target';
const OTHERS = 10;

/**
 * A sessions folder in the documented layout (packages/store-file/README.md): the target's log holds
 * `events` events, one record line each, as appends leave it; ten other sessions; an index.
 */
function generate(events, small = 10) {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-bench-'));
  const now = Date.now();
  const index = [];
  for (let n = 0; n <= OTHERS; n++) {
    const id = n === 0 ? TARGET : `s${n}`;
    const count = n === 0 ? events : small;
    const text = sessionLogText(id, count, now);
    writeFileSync(join(dir, `${id}.jsonl`), text);
    index.push({
      id,
      agent: 'bench',
      eventCount: count,
      paused: false,
      createdAt: now,
      updatedAt: now,
      bytes: Buffer.byteLength(text),
    });
  }
  writeFileSync(
    join(dir, 'index.json'),
    `${JSON.stringify({ version: 1, generation: 1, sessions: index })}\n`,
  );
  writeFileSync(join(dir, 'index.jsonl'), `${JSON.stringify({ generation: 1 })}\n`);
  return dir;
}

/** One subject in this (child) process: `append:<events>` or `create`. Prints its figures as JSON. */
async function child(subject) {
  if (subject.startsWith('create')) {
    const dir = generate(10);
    const store = new FileSessionStore({ path: dir, durable: subject !== 'create:no-fsync' });
    for (let i = 0; i < 3; i++) await store.create({ id: `warm${i}`, agent: 'bench' });
    const times = await timeEach(APPENDS, (i) => store.create({ id: `new${i}`, agent: 'bench' }));
    rmSync(dir, { recursive: true, force: true });
    return { medianMs: median(times), cpuMs: median(times.cpu) };
  }
  if (subject === 'pairs') return pairs();
  const events = Number(subject.split(':')[1]);
  const dir = generate(events);
  const store = new FileSessionStore({ path: dir });
  // As a run does: read the session once, then append to it.
  const readStart = performance.now();
  const session = await store.get(TARGET);
  const getMs = performance.now() - readStart;
  if (session.events.length !== events)
    throw new Error(`expected ${events} events, read ${session.events.length}`);
  for (let i = 0; i < 3; i++) await store.append(TARGET, [event(1e6 + i)]);
  const times = await timeEach(APPENDS, (i) => store.append(TARGET, [event(2e6 + i)]));
  const after = await new FileSessionStore({ path: dir }).get(TARGET);
  if (after.events.length !== events + 3 + APPENDS) throw new Error('appends were lost');
  rmSync(dir, { recursive: true, force: true });
  return { medianMs: median(times), cpuMs: median(times.cpu), maxMs: Math.max(...times), getMs };
}

/**
 * Appends to a 10-event session and a 50,000-event one in turn, in one process, so both see the
 * same machine load at the same moment; the ratio is taken pair by pair.
 */
async function pairs() {
  const dir = generate(50_000, 10);
  const store = new FileSessionStore({ path: dir });
  await store.get(TARGET);
  await store.get('s1');
  const ratios = [];
  for (let i = 0; i < APPENDS; i++) {
    const order = i % 2 ? [TARGET, 's1'] : ['s1', TARGET];
    const ms = {};
    for (const id of order) {
      const start = performance.now();
      await store.append(id, [event(3e6 + i)]);
      ms[id] = performance.now() - start;
    }
    ratios.push(ms[TARGET] / ms.s1);
  }
  rmSync(dir, { recursive: true, force: true });
  return { ratio: median(ratios) };
}

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await child(process.argv[3])));
  process.exit(0);
}

/** Writes every dirty page of the machine to disk (`sync`), where the command exists. */
function flushDisk() {
  try {
    execFileSync('sync', [], { stdio: 'ignore' });
  } catch {
    // No `sync` here: the children run as they did.
  }
}

const self = fileURLToPath(import.meta.url);
const subjects = [...LENGTHS.map((n) => `append:${n}`), 'create', 'create:no-fsync', 'pairs'];
const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const round = {};
  // Rotate the order so no subject always runs first (or last) in a round, and reverse it every
  // other round: a rotation alone kept `create` right after `append:50000` in every round.
  const rotated = subjects.map((_, i) => subjects[(i + r) % subjects.length]);
  const order = r % 2 ? rotated.reverse() : rotated;
  for (const subject of order) {
    // The last child's writes (a 50,000-event log, its removal) are flushed to disk before the
    // next child starts, outside its timing: a subject does not pay for another's write-back.
    flushDisk();
    const out = execFileSync(process.execPath, [...CHILD_FLAGS, self, '--child', subject], {
      encoding: 'utf8',
    });
    round[subject] = JSON.parse(out);
  }
  rounds.push(round);
  console.error(`round ${r + 1}/${ROUNDS} done`);
}

const spread = (values, digits = 3) =>
  `${round(Math.min(...values), digits)}–${round(Math.max(...values), digits)}`;
const rows = [];
const summary = [];
for (const n of LENGTHS) {
  const key = `append:${n}`;
  const ms = rounds.map((r) => r[key].medianMs);
  const ratios = rounds.map((r) => r[key].medianMs / r['append:10'].medianMs);
  const gets = rounds.map((r) => r[key].getMs);
  const cpu = rounds.map((r) => r[key].cpuMs);
  const cpuRatios = rounds.map((r) => r[key].cpuMs / r['append:10'].cpuMs);
  rows.push([
    `append, ${n.toLocaleString('en')} events`,
    round(median(ms), 3),
    spread(ms),
    n === 10 ? '1' : `${round(median(ratios), 2)} (${spread(ratios, 2)})`,
    `${round(median(cpu), 3)} (${spread(cpu)})`,
    n === 10 ? '1' : `${round(median(cpuRatios), 2)} (${spread(cpuRatios, 2)})`,
    round(Math.max(...rounds.map((r) => r[key].maxMs)), 2),
    round(median(gets), 1),
  ]);
  summary.push({
    workload: `file store append, ${n} events`,
    subject: 'agentctl file store',
    metric: 'ms (median)',
    value: round(median(ms), 3),
  });
}
const pairRatios = rounds.map((r) => r.pairs.ratio);
rows.push([
  'append pairs in one process, 50,000 ÷ 10 events',
  '',
  '',
  `${round(median(pairRatios), 2)} (${spread(pairRatios, 2)})`,
  '',
  '',
  '',
  '',
]);
const creates = rounds.map((r) => r.create.medianMs);
const createCpu = rounds.map((r) => r.create.cpuMs);
rows.push([
  'create a session',
  round(median(creates), 3),
  spread(creates),
  '',
  `${round(median(createCpu), 3)} (${spread(createCpu)})`,
  '',
  '',
  '',
]);
const fastCreates = rounds.map((r) => r['create:no-fsync'].medianMs);
const fastCpu = rounds.map((r) => r['create:no-fsync'].cpuMs);
rows.push([
  'create, durable: false',
  round(median(fastCreates), 3),
  spread(fastCreates),
  '',
  `${round(median(fastCpu), 3)} (${spread(fastCpu)})`,
  '',
  '',
  '',
]);
summary.push({
  workload: 'file store create',
  subject: 'agentctl file store',
  metric: 'ms (median)',
  value: round(median(creates), 3),
});
printTable(
  `file session store, durable (fsync): ${ROUNDS} rounds × ${APPENDS} operations, each subject in its own process`,
  [
    'operation',
    'wall ms (median of rounds)',
    'min–max',
    '× 10 events (min–max)',
    'CPU ms (min–max)',
    'CPU × 10 events',
    'slowest single',
    'get ms',
  ],
  rows,
);
writeResult('session-append', summary, { rounds, appends: APPENDS });
