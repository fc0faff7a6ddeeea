// Cost of listing sessions in a FileSessionStore of 1,000 / 10,000 / 100,000 sessions (index only,
// warm: the store has read its index once): a page of 20 (`listPage`, as `GET /sessions?limit=20`
// and `sessions list --limit 20` read it), the next page from its cursor, the children of one
// session (`list({ parentId })`, what every agent tool call asks), and every summary (`list()`).
// Each size runs in its own process; a figure is the median of BENCH_REPEATS calls.
// Run after a build: `pnpm build && node bench/session-list.js` (writes bench/results/session-list.json).
// Knobs: BENCH_REPEATS (default 50), BENCH_SIZES (default 1000,10000,100000).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSessionStore } from '../packages/store-file/dist/index.js';
import { CHILD_FLAGS } from './lib/core.js';
import { median, printTable, round, writeResult } from './lib/report.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 50);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);

/** A sessions folder whose index lists `count` sessions, three created each millisecond, one in 100 a child of `s0`. */
function generate(count) {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-bench-list-'));
  const now = Date.now();
  const sessions = Array.from({ length: count }, (_, i) => ({
    id: `s${i}`,
    agent: 'bench',
    ...(i > 0 && i % 100 === 0 ? { parentId: 's0', parentCallId: `c${i}` } : {}),
    eventCount: 4,
    paused: false,
    createdAt: now + Math.floor(i / 3),
    updatedAt: now + i,
    bytes: 1000,
  }));
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify({ version: 1, generation: 1, sessions })}\n`);
  writeFileSync(join(dir, 'index.jsonl'), `${JSON.stringify({ generation: 1 })}\n`);
  return dir;
}

async function timed(fn) {
  const times = [];
  for (let i = 0; i < REPEATS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return round(median(times), 3);
}

async function child(count) {
  const dir = generate(count);
  const store = new FileSessionStore({ path: dir, durable: false });
  const coldStart = performance.now();
  const first = await store.listPage({ limit: 20 });
  const coldMs = performance.now() - coldStart;
  if (first.sessions.length !== 20 || !first.next) throw new Error('no first page');
  const figures = {
    coldFirstPageMs: round(coldMs, 1),
    pageMs: await timed(() => store.listPage({ limit: 20 })),
    nextPageMs: await timed(() => store.listPage({ limit: 20, after: first.next })),
    childrenMs: await timed(() => store.list({ parentId: 's0' })),
    everyMs: await timed(() => store.list()),
  };
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await child(Number(process.argv[3]))));
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const results = {};
for (const size of SIZES) {
  const out = execFileSync(process.execPath, [...CHILD_FLAGS, self, '--child', String(size)], {
    encoding: 'utf8',
  });
  results[size] = JSON.parse(out);
}
printTable(
  'FileSessionStore listing, ms (median; the index read once before)',
  ['sessions', 'page of 20', 'next page', 'children of one', 'every summary', 'first page, cold'],
  SIZES.map((n) => {
    const r = results[n];
    return [n, r.pageMs, r.nextPageMs, r.childrenMs, r.everyMs, r.coldFirstPageMs];
  }),
);
writeResult(
  'session-list',
  SIZES.flatMap((n) => [
    {
      workload: 'session-list',
      subject: `${n} sessions`,
      metric: 'page of 20',
      value: results[n].pageMs,
      unit: 'ms',
    },
    {
      workload: 'session-list',
      subject: `${n} sessions`,
      metric: 'children of one',
      value: results[n].childrenMs,
      unit: 'ms',
    },
  ]),
  results,
);
