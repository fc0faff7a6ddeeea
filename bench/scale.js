// Beyond one machine: figures for the stores and the queue, one section each.
//
//   node bench/scale.js            every section
//   node bench/scale.js runs       one section
//
// Sections (each the same shape: `prepare`, `subjects`, `child`, `report`):
//   runs    queued runs/s with 1, 2 and 3 `agentctl worker` processes, file store and PostgreSQL
//           (lib/queue-runs.js).
//
// Method (bench/README.md): each subject runs in its own child process, rounds interleaved
// (lib/rounds.js); figures are medians with min–max over rounds, and ratios are taken round by
// round (pair by pair). Knobs: BENCH_ROUNDS (default 3), and each section's own.
// Run after a build: `pnpm build && node bench/scale.js` (redis-server and PostgreSQL from Debian).
import { fileURLToPath } from 'node:url';
import { runs } from './lib/queue-runs.js';
import { writeResult } from './lib/report.js';
import { childKey, interleavedRounds } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SELF = fileURLToPath(import.meta.url);

const SECTIONS = { runs };

const key = childKey();
if (key !== undefined) {
  const [section, ...rest] = key.split('/');
  const context = JSON.parse(process.argv[process.argv.indexOf('--child') + 2]);
  const result = await SECTIONS[section].child(rest.join('/'), context);
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
  process.exit(0);
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const all = {};
for (const [name, section] of Object.entries(SECTIONS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const prepared = await section.prepare();
  try {
    const keys = section.subjects.map((s) => `${name}/${s}`);
    const byKey = interleavedRounds(SELF, keys, ROUNDS, [JSON.stringify(prepared.context)]);
    const bySubject = Object.fromEntries(section.subjects.map((s) => [s, byKey[`${name}/${s}`]]));
    all[name] = section.report(bySubject);
  } finally {
    await prepared.dispose();
  }
}
// Every section's report returns summary rows ({ workload, subject, metric, value, unit, ... }).
writeResult('scale', Object.values(all).flat(), { rounds: ROUNDS });
