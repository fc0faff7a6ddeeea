// Beyond one machine: figures for the stores and the queue, one section each.
//
//   node bench/scale.js            every section
//   node bench/scale.js append     one section
//
// Sections (each exports the same shape from this file: `prepare`, `subjects`, `child`, `report`):
//   append  the cost of one SessionStore.append for the file and postgres stores, at 10 and 100,000
//           sessions in the store and at 10 and 50,000 events in the session (below).
//   runs    (the queue's: runs/s with 1, 2 and 3 workers; added by its section below `append`.)
//
// Method (bench/README.md): each subject runs in its own child process, rounds interleaved
// (lib/rounds.js), gc() before measuring; figures are medians with min–max over rounds, and ratios
// are taken round by round (pair by pair). `prepare` builds the big data sets once, in the parent:
// the 100,000-session file store from generated session files plus `reindex()` (the store's own
// rebuild), the 100,000-session database with one bulk INSERT … SELECT generate_series. Each child
// then makes its own fresh target session, so rounds do not feed each other.
// Knobs: BENCH_ROUNDS (default 3), BENCH_APPENDS (timed appends per child, default 300),
// BENCH_SESSIONS (default 100000), BENCH_EVENTS (default 50000).
// Run after a build: `pnpm build && node bench/scale.js` (PostgreSQL from Debian must be installed).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSessionStore } from '../packages/store-file/dist/index.js';
import { PostgresSessionStore } from '../packages/store-postgres/dist/index.js';
import { startPostgres } from '../test/support/postgres.js';
import { runs } from './lib/queue-runs.js';
import { gc, median, printTable, round, writeResult } from './lib/report.js';
import { childKey, interleavedRounds, pairedRatio, showSpread, spread } from './lib/rounds.js';
import { benchEvent as event, sessionLogText, timeEach } from './lib/store-workload.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 300);
const MANY_SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100_000);
const LONG = Number(process.env.BENCH_EVENTS ?? 50_000);
const SELF = fileURLToPath(import.meta.url);

/** Appends `count` events to `id` in batches, as a long conversation would have left them. */
async function fill(store, id, count, from = 0) {
  for (let at = 0; at < count; at += 1_000) {
    const n = Math.min(1_000, count - at);
    await store.append(
      id,
      Array.from({ length: n }, (_, i) => event(from + at + i)),
    );
  }
}

/**
 * A store holding `sessions` sessions (the prepared data set for the big case) and a fresh target
 * session of `events` events, read once as a run does before it appends. `dispose(n)` checks that
 * the n appends made since all arrived, removes the target and closes the store.
 */
async function openTarget(kind, sessions, events, context) {
  const big = sessions > 10;
  const cleanup = [];
  let store;
  if (kind === 'file') {
    const path = big ? context.manyDir : mkdtempSync(join(tmpdir(), 'agentctl-scale-small-'));
    if (!big) cleanup.push(() => rmSync(path, { recursive: true, force: true }));
    // durable: the default, as `agentctl run` writes (fsync on every append).
    store = new FileSessionStore({ path });
  } else {
    const schema = big ? 'public' : `small_${process.pid}_${events}`;
    store = new PostgresSessionStore({ url: big ? context.manyUrl : context.pgUrl, schema });
  }
  const target = `target-${process.pid}-${sessions}-${events}`;
  if (!big) for (let n = 1; n < sessions; n++) await store.create({ id: `small${n}`, agent: 'bench' });
  await store.create({ id: target, agent: 'bench' });
  await fill(store, target, events);
  const read = await store.get(target);
  if (read.events.length !== events) throw new Error(`expected ${events} events, read ${read.events.length}`);
  for (let i = 0; i < 5; i++) await store.append(target, [event(1e6 + i)]);
  return {
    store,
    target,
    async dispose(appended) {
      const after = await store.get(target);
      if (after.events.length !== events + 5 + appended) throw new Error('appends were lost');
      await store.delete(target);
      await store.close();
      for (const undo of cleanup) undo();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Section `append`: store append cost by number of sessions and by session length.

const append = {
  title: 'append: one SessionStore.append (1 event) by sessions in the store and events in the session',

  /** Subject keys: `<store>:<sessions>:<events>`, the store holding that many sessions, the target that many events. */
  subjects: ['file', 'postgres'].flatMap((store) => [
    `${store}:10:10`,
    `${store}:${MANY_SESSIONS}:10`,
    `${store}:10:${LONG}`,
    `${store}:pair:sessions`,
    `${store}:pair:events`,
  ]),

  /** Builds the shared data sets once: a file store and a database with MANY_SESSIONS sessions of 10 events. */
  async prepare() {
    const started = performance.now();
    // Durable, like the file store beside it: both sync every append to disk.
    const pg = await startPostgres({ durable: true });
    const manyUrl = await pg.createDatabase('many');
    const many = new PostgresSessionStore({ url: manyUrl });
    await many.open();
    // One statement for the sessions, one for their events: what a restore or a migration would do.
    await pg.sql(
      `INSERT INTO agentctl_sessions (id, agent, state, event_count, created_at, updated_at)
       SELECT 'bulk' || n, 'bench', '{"last": 9}', 10, 1700000000000 + n, 1700000000000 + n
         FROM generate_series(1, ${MANY_SESSIONS}) AS n`,
      'many',
    );
    await pg.sql(
      `INSERT INTO agentctl_events (session_id, seq, event)
       SELECT 'bulk' || n, k, json_build_object('type', 'message', 'id', 'e' || k, 'invocationId', 'bench',
              'branch', 'bench', 'author', 'bench', 'time', 1700000000000 + k,
              'message', json_build_object('role', 'assistant', 'content', 'message number ' || k || ': ' || repeat('lorem ipsum ', 6)),
              'stateDelta', json_build_object('last', k))
         FROM generate_series(1, ${MANY_SESSIONS}) AS n, generate_series(1, 10) AS k`,
      'many',
    );
    await pg.sql('VACUUM ANALYZE', 'many');
    await many.close();

    // The file store's session format (packages/store-file/README.md): a snapshot line, then one
    // line per append. The index is rebuilt by the store itself, so this follows its layout.
    const dir = mkdtempSync(join(tmpdir(), 'agentctl-scale-'));
    const now = Date.now();
    for (let n = 1; n <= MANY_SESSIONS; n++) {
      writeFileSync(join(dir, `bulk${n}.jsonl`), sessionLogText(`bulk${n}`, 10, now + n));
    }
    const files = new FileSessionStore({ path: dir, durable: false });
    await files.reindex();
    if ((await files.list()).length !== MANY_SESSIONS)
      throw new Error('the generated file store is incomplete');
    await files.close();
    const seconds = round((performance.now() - started) / 1000, 1);
    console.error(
      `append: prepared ${MANY_SESSIONS.toLocaleString('en')} sessions per store in ${seconds} s`,
    );
    return {
      context: { pgUrl: pg.url(), manyUrl, manyDir: dir },
      async dispose() {
        await pg.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },

  /**
   * One subject in this child process. `<store>:<sessions>:<events>`: opens its store, makes a fresh
   * target and times APPENDS appends. `<store>:pair:<sessions|events>`: opens the small case and the
   * big one side by side and appends to them in turn, so each pair sees the same machine load; the
   * figure is the median of big ÷ small, pair by pair.
   */
  async child(subject, context) {
    const [kind, a, b] = subject.split(':');
    if (a === 'pair') {
      const big = b === 'sessions' ? [MANY_SESSIONS, 10] : [10, LONG];
      const sides = [await openTarget(kind, 10, 10, context), await openTarget(kind, ...big, context)];
      gc();
      const ratios = [];
      for (let i = 0; i < APPENDS; i++) {
        const ms = [0, 0];
        for (const side of i % 2 ? [1, 0] : [0, 1]) {
          const start = performance.now();
          await sides[side].store.append(sides[side].target, [event(3e6 + i)]);
          ms[side] = performance.now() - start;
        }
        ratios.push(ms[1] / ms[0]);
      }
      for (const side of sides) await side.dispose(APPENDS);
      return { ratio: median(ratios) };
    }
    const side = await openTarget(kind, Number(a), Number(b), context);
    gc();
    const times = await timeEach(APPENDS, (i) => side.store.append(side.target, [event(2e6 + i)]));
    await side.dispose(APPENDS);
    return { medianMs: median(times), p90Ms: times.sort((x, y) => x - y)[Math.floor(times.length * 0.9)] };
  },

  report(byKey) {
    const ms = (key) => byKey[key].map((r) => r.medianMs);
    const rows = [];
    const results = [];
    for (const kind of ['file', 'postgres']) {
      const base = `${kind}:10:10`;
      for (const [label, key] of [
        ['10 sessions, 10 events', base],
        [`${MANY_SESSIONS.toLocaleString('en')} sessions, 10 events`, `${kind}:${MANY_SESSIONS}:10`],
        [`10 sessions, ${LONG.toLocaleString('en')} events`, `${kind}:10:${LONG}`],
      ]) {
        const figure = spread(ms(key));
        const ratio = key === base ? undefined : pairedRatio(ms(key), ms(base));
        const p90 = spread(byKey[key].map((r) => r.p90Ms));
        rows.push([
          kind,
          label,
          showSpread(figure, ' ms'),
          showSpread(p90, ' ms'),
          ratio ? showSpread(ratio, '×') : '1',
        ]);
        results.push({
          workload: `store append, ${label}`,
          subject: `agentctl ${kind} store`,
          metric: 'ms (median)',
          value: figure.median,
          unit: 'ms',
          spread: figure,
          p90Ms: p90,
          ratioToSmall: ratio ?? null,
        });
      }
    }
    const ratioRow = (subject, label, ratio) => {
      rows.push([subject, label, '', '', showSpread(ratio, '×')]);
      results.push({
        workload: `store append, ${label}`,
        subject: subject === 'postgres ÷ file' ? subject : `agentctl ${subject} store`,
        metric: 'ratio (median)',
        value: ratio.median,
        unit: '×',
        spread: ratio,
      });
    };
    for (const kind of ['file', 'postgres']) {
      const pair = (key) => spread(byKey[key].map((r) => r.ratio));
      ratioRow(
        kind,
        `in-process pairs, ${MANY_SESSIONS.toLocaleString('en')} ÷ 10 sessions`,
        pair(`${kind}:pair:sessions`),
      );
      ratioRow(
        kind,
        `in-process pairs, ${LONG.toLocaleString('en')} ÷ 10 events`,
        pair(`${kind}:pair:events`),
      );
    }
    // postgres ÷ file in each case, round by round.
    for (const [label, suffix] of [
      ['10 sessions, 10 events', '10:10'],
      [`${MANY_SESSIONS.toLocaleString('en')} sessions, 10 events`, `${MANY_SESSIONS}:10`],
      [`10 sessions, ${LONG.toLocaleString('en')} events`, `10:${LONG}`],
    ]) {
      ratioRow('postgres ÷ file', label, pairedRatio(ms(`postgres:${suffix}`), ms(`file:${suffix}`)));
    }
    printTable(this.title, ['store', 'case', 'append (median)', 'p90', '÷ 10 sessions, 10 events'], rows);
    return results;
  },
};

// ---------------------------------------------------------------------------------------------
// Section `runs` (queue): queued runs/s with 1, 2 and 3 workers, in lib/queue-runs.js.

const SECTIONS = { append, runs };

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
writeResult('scale', Object.values(all).flat(), {
  rounds: ROUNDS,
  appends: APPENDS,
  sessions: MANY_SESSIONS,
  events: LONG,
});
