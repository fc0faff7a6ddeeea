// 10,000 concurrent idle sessions held by one process: each has had one turn (the user's message,
// one tool call, the answer) and waits for the next, as in a chat server between messages. Memory
// per session is the heap and RSS the process holds after a full GC, over what it held before the
// sessions, divided by their number. Subjects: the hand-written floor keeping each conversation's
// messages in a Map, and one agentctl `Runner` keeping them in the InMemorySessionStore or in the
// FileSessionStore (a temp folder; `durable: false`, since 10,000 × fsync measures the disk). Each
// subject runs in a fresh process. Run after a build:
//   pnpm build && node bench/idle-sessions.js
// Prints a table and writes bench/results/idle-sessions.json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHILD_FLAGS, loadCore } from './lib/core.js';
import { gc, printTable, round, writeResult } from './lib/report.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const STEPS = 1;
// Sessions are opened this many at a time, so the figure is what idle sessions hold, not the
// transient cost of 10,000 runs in flight (concurrent-runs.js measures that).
const BATCH = 500;

const SUBJECTS = {
  floor: {
    label: 'hand-written floor (Map of message arrays)',
    async open() {
      const { floorRun } = await import('./lib/workload.js');
      const held = new Map();
      return {
        async turn(id) {
          const result = await floorRun('hello', STEPS);
          held.set(id, result.messages);
          return result.messages.length;
        },
        async check(id) {
          return held.get(id)?.length;
        },
        close() {},
      };
    },
  },
  memory: {
    label: 'agentctl Runner, InMemorySessionStore',
    async open() {
      const { InMemorySessionStore } = await loadCore();
      return runnerSubject(new InMemorySessionStore());
    },
  },
  file: {
    label: 'agentctl Runner, FileSessionStore',
    async open() {
      const { FileSessionStore } = await import('../packages/store-file/dist/index.js');
      const dir = mkdtempSync(join(tmpdir(), 'agentctl-idle-'));
      const subject = await runnerSubject(new FileSessionStore({ path: dir, durable: false }));
      return {
        ...subject,
        close() {
          // One log per session (`<id>.jsonl`, packages/store-file/README.md) beside the index.
          const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl') && f !== 'index.jsonl').length;
          rmSync(dir, { recursive: true, force: true });
          return { sessionFiles: files };
        },
      };
    },
  },
};

async function runnerSubject(store) {
  const { Runner } = await loadCore();
  const { agentFor } = await import('./lib/subjects.js');
  const runner = new Runner({ agent: agentFor(STEPS), store });
  return {
    async turn(id) {
      const run = runner.run({ input: 'hello', sessionId: id });
      let events = 0;
      for await (const _ of run) events++;
      const result = await run.invocation;
      if (result.output !== 'done') throw new Error(`session ${id}: output ${result.output}`);
      return events;
    },
    async check(id) {
      return (await store.get(id))?.events.length;
    },
    close() {},
  };
}

const usage = () => {
  gc();
  const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed + external + arrayBuffers, rss };
};

async function child(key) {
  const { executions } = await import('./lib/workload.js');
  const subject = await SUBJECTS[key].open();
  await subject.turn('warm-up'); // loads and compiles the code paths before the baseline
  const before = usage();
  const started = performance.now();
  const ids = Array.from({ length: SESSIONS }, (_, i) => `s${i}`);
  for (let i = 0; i < SESSIONS; i += BATCH)
    await Promise.all(ids.slice(i, i + BATCH).map((id) => subject.turn(id)));
  const openMs = performance.now() - started;
  const after = usage();
  // The work really happened: every session ran its tool, and a sample of them holds its turn.
  if (executions.count !== (SESSIONS + 1) * STEPS) {
    throw new Error(`${key}: ${executions.count} tool executions, expected ${(SESSIONS + 1) * STEPS}`);
  }
  const expected = await subject.check('warm-up');
  for (const id of [ids[0], ids[SESSIONS >> 1], ids[SESSIONS - 1]]) {
    const held = await subject.check(id);
    if (!held || held !== expected)
      throw new Error(`${key}: session ${id} holds ${held} items, expected ${expected}`);
  }
  const closed = subject.close() ?? {};
  if (closed.sessionFiles !== undefined && closed.sessionFiles < SESSIONS) {
    throw new Error(`${key}: ${closed.sessionFiles} session files, expected ${SESSIONS}`);
  }
  return {
    subject: key,
    label: SUBJECTS[key].label,
    sessions: SESSIONS,
    itemsPerSession: expected,
    heapBytesPerSession: Math.round((after.heap - before.heap) / SESSIONS),
    rssBytesPerSession: Math.round((after.rss - before.rss) / SESSIONS),
    sessionsPerSecond: Math.round((SESSIONS * 1000) / openMs),
    heapMiBAfter: round(after.heap / 1024 / 1024, 1),
    rssMiBAfter: round(after.rss / 1024 / 1024, 1),
    ...closed,
  };
}

/** Runs the benchmark (one child process per subject), prints its table and writes its JSON. */
export async function main() {
  const self = fileURLToPath(import.meta.url);
  const results = Object.keys(SUBJECTS).map((key) => {
    const out = execFileSync(process.execPath, [...CHILD_FLAGS, self, '--child', key], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').at(-1));
  });
  const kib = (bytes) => round(bytes / 1024, 2);
  printTable(
    `idle sessions: ${SESSIONS.toLocaleString('en')} held by one process after one turn each (${STEPS} tool call), after a full GC`,
    ['subject', 'heap KiB/session', 'RSS KiB/session', 'heap MiB', 'RSS MiB', 'opened/s'],
    results.map((r) => [
      r.label,
      kib(r.heapBytesPerSession),
      kib(r.rssBytesPerSession),
      r.heapMiBAfter,
      r.rssMiBAfter,
      r.sessionsPerSecond,
    ]),
  );
  const workload = `${SESSIONS.toLocaleString('en')} idle sessions`;
  const summary = results.flatMap((r) => [
    {
      workload,
      subject: r.label,
      metric: 'heap KiB/session',
      value: kib(r.heapBytesPerSession),
      baseline: r.subject === 'floor',
    },
    {
      workload,
      subject: r.label,
      metric: 'RSS KiB/session',
      value: kib(r.rssBytesPerSession),
      baseline: r.subject === 'floor',
    },
  ]);
  return writeResult('idle-sessions', summary, { sessions: SESSIONS, steps: STEPS, results });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--child');
  if (at > 0) console.log(JSON.stringify(await child(process.argv[at + 1])));
  else await main();
}
