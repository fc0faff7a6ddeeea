// Between two bursts of runs a full collection finds no span pending. V8 keeps a hidden class only
// while some object has it, and throws optimized code away when a class it embedded dies, so the
// tracing code was optimized again after every such collection. The table sink and the observer
// keep their last spans and observation alive; this counts the "weak objects" deoptimizations of
// tracing's own functions per burst, in a child process over the built packages.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const core = fileURLToPath(new URL('../../core/dist/index.js', import.meta.url));
const tracing = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/traced-bursts.mjs', import.meta.url));

// Functions only tracing has (the names --trace-deopt prints).
const TRACING = new Set([
  'SpanRecord',
  'PendingSpan',
  'PendingChat',
  'PendingTool',
  'TableSpan',
  'ChatObservation',
  'startChat',
  'startTool',
  'endAfter',
  'answer',
  'written',
  'take',
  '#row',
  '#chatAttributes',
  '#toolAttributes',
  '#startTool',
  '#endTool',
  'get startTime',
  'get endTime',
  'get resource',
]);

// Measured 2026-11-23 (Node 20.20), bursts 1–3 of 300 runs one after another: 0–2 with the kept
// spans and observation, 10–11 without. More fails here.
const LIMIT = 6;

describe("tracing's optimized code", () => {
  it(`survives full collections between bursts of runs (under ${LIMIT} "weak objects" deoptimizations of its functions in three bursts)`, () => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--trace-deopt', fixture, core, tracing, '4', '300'],
      {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    const perBurst = [0, 0, 0, 0];
    let burst = -1;
    for (const line of out.split('\n')) {
      const start = /^burst (\d+)/.exec(line);
      if (start) burst = Number(start[1]);
      else if (burst >= 0 && line.includes('reason: weak objects')) {
        const name = /<SharedFunctionInfo ([^>]*)>/.exec(line)?.[1] ?? '';
        if (TRACING.has(name)) perBurst[burst]++;
      }
    }
    // The bursts ran: every one printed its start.
    expect(burst).toBe(3);
    console.log(`tracing's "weak objects" deoptimizations per burst: ${perBurst.join(' ')}`);
    expect(perBurst[1] + perBurst[2] + perBurst[3]).toBeLessThan(LIMIT);
  }, 120_000);
});
