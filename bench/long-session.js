// One session continued turn after turn, as `agentctl run AGENT "..." --session work` does: each
// turn a fresh store reads the session's log and a fresh Runner takes one turn on it (the model
// answers at once and calls one tool whose result is 2 KB of text). Prints the milliseconds of one
// turn, and of its read of the session, when the session already holds 10 / 100 / 1,000 turns,
// with and without `max_history`, and the ratio to 10 turns: a turn reads the whole log (the
// conversation is the model's input), so it grows linearly with the session; growing faster
// than that would be a defect.
// Run after a build: `pnpm build && node bench/long-session.js` (writes bench/results/long-session.json).
// Knobs: BENCH_SAMPLES (timed turns per length, default 15), BENCH_LENGTHS (e.g. "10,100,1000").
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSessionStore } from '../packages/store-file/dist/index.js';
import { CHILD_FLAGS, loadCore } from './lib/core.js';
import { median, printTable, round, writeResult } from './lib/report.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
const LENGTHS = (process.env.BENCH_LENGTHS ?? '10,100,1000').split(',').map(Number);
const RESULT = 'r'.repeat(2048);

/** A model that calls `lookup` once per turn, then answers; it reads the whole history it gets. */
function model() {
  return {
    name: 'bench',
    async chat(params) {
      let chars = 0;
      for (const m of params.messages) chars += m.content?.length ?? 0;
      const last = params.messages.at(-1);
      const usage = { inputTokens: Math.ceil(chars / 4), outputTokens: 4 };
      if (last.role === 'user')
        return {
          content: null,
          toolCalls: [{ id: `c${params.messages.length}`, name: 'lookup', arguments: { q: last.content } }],
          usage,
          finishReason: 'tool_calls',
        };
      return {
        content: `answer after ${params.messages.length} messages`,
        toolCalls: [],
        usage,
        finishReason: 'stop',
      };
    },
    async *stream(params) {
      yield { type: 'done', response: await this.chat(params) };
    },
  };
}

/** One subject in this (child) process: a session of `length` turns, then SAMPLES timed turns. */
async function child(length, windowed) {
  const { createAgent, defineTool, Runner } = await loadCore();
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a thing up',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    execute: () => RESULT,
  });
  const agent = createAgent({
    name: 'bench',
    provider: model(),
    tools: [lookup],
    ...(windowed ? { maxHistory: 40 } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-bench-long-'));
  const turn = async (i, store) => {
    const runner = new Runner({ agent, store });
    const result = await runner.run({ input: `question ${i}`, sessionId: 'work' }).invocation;
    if (result.status !== 'complete') throw new Error(`turn ${i}: ${result.status}`);
  };
  try {
    // Built with one store (its appends cost the same at any length), as weeks of turns leave it.
    const builder = new FileSessionStore({ path: dir, durable: false });
    for (let i = 0; i < length; i++) await turn(i, builder);
    const turns = [];
    const reads = [];
    for (let i = 0; i < SAMPLES; i++) {
      // A fresh store per turn: a new `agentctl run` process knows nothing of the log.
      let t = performance.now();
      await new FileSessionStore({ path: dir, durable: false }).get('work');
      reads.push(performance.now() - t);
      t = performance.now();
      await turn(length + i, new FileSessionStore({ path: dir, durable: false }));
      turns.push(performance.now() - t);
    }
    const bytes = statSync(join(dir, 'work.jsonl')).size;
    process.stdout.write(JSON.stringify({ turn: median(turns), read: median(reads), bytes }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]), process.argv[4] === 'windowed');
} else {
  const self = fileURLToPath(import.meta.url);
  const rows = [];
  const details = {};
  for (const windowed of [false, true]) {
    let base;
    for (const length of LENGTHS) {
      const out = execFileSync(
        process.execPath,
        [...CHILD_FLAGS, self, '--child', String(length), windowed ? 'windowed' : 'whole'],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      const figures = JSON.parse(out);
      base ??= figures.turn;
      const label = `${length} turns${windowed ? ', max_history 40' : ''}`;
      details[label] = figures;
      rows.push([
        label,
        `${round(figures.bytes / 1024 / 1024, 2)} MiB`,
        `${round(figures.read, 2)} ms`,
        `${round(figures.turn, 2)} ms`,
        `${round(figures.turn / base, 2)}×`,
      ]);
    }
  }
  printTable(
    `one more turn of a long session (median of ${SAMPLES}, a fresh store and Runner each)`,
    ['session', 'log', 'read', 'turn', 'vs 10 turns'],
    rows,
  );
  writeResult('long-session', details, { samples: SAMPLES, lengths: LENGTHS });
}
