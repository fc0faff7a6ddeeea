// What a long-lived server keeps of the requests it has answered: agentctl's HTTP app (the one
// `agentctl serve` mounts) in its own process, driven over loopback by 8 clients with requests that
// keep no session (OpenAI chat completions without the session header, streamed and not), in
// phases. After each phase the server collects its garbage and reports its heap without code space
// (what the JIT compiles moves with warm-up, not with requests) and its RSS. The figure is the
// slope: bytes kept per request from the second phase to the last (the first warms up). A run that
// keeps nothing reads near 0; each run of `serve` used to keep ~2.5 KiB for good.
//   pnpm build && node bench/serve-memory.js
// Knobs: BENCH_SERVE_MEMORY_PHASES (default 5), BENCH_SERVE_MEMORY_REQUESTS (per phase, default 4000).
// Prints a table and writes bench/results/serve-memory.json.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { CHILD_FLAGS, loadCore } from './lib/core.js';
import { gc, mib, printTable, round, writeResult } from './lib/report.js';

const PHASES = Number(process.env.BENCH_SERVE_MEMORY_PHASES ?? 5);
const PER_PHASE = Number(process.env.BENCH_SERVE_MEMORY_REQUESTS ?? 4000);
const CLIENTS = 8;

async function server() {
  const core = await loadCore();
  const { createApp, startServer } = await import('../packages/server/dist/index.js');
  const store = new core.InMemorySessionStore();
  const echo = core.createAgent({ name: 'echo', provider: core.offline('echo') });
  const source = {
    list: () => [{ name: 'echo' }],
    lease: (name) => (name === 'echo' ? { agent: echo, store, release: () => undefined } : undefined),
    stores: async () => [store],
  };
  const { app, tracker } = createApp({ source });
  const running = await startServer(app, tracker, '127.0.0.1', 0);
  process.on('message', (message) => {
    if (message !== 'measure') return;
    gc();
    const heap = getHeapSpaceStatistics()
      .filter((space) => !space.space_name.startsWith('code'))
      .reduce((sum, space) => sum + space.space_used_size, 0);
    process.send({ heap, rss: process.memoryUsage().rss });
  });
  process.on('disconnect', () => running.shutdown(0).then(() => process.exit(0)));
  process.send({ url: running.url });
}

function nextMessage(child) {
  return new Promise((resolve) => child.once('message', resolve));
}

async function drive(url, count) {
  let next = 0;
  let answered = 0;
  const client = async () => {
    while (next < count) {
      const i = next++;
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'echo',
          stream: i % 2 === 0,
          messages: [{ role: 'user', content: `hi ${i}` }],
        }),
      });
      const text = await response.text();
      // A streamed echo comes in pieces: its end is what is checked.
      if (response.status === 200 && text.includes(i % 2 === 0 ? 'data: [DONE]' : `hi ${i}`)) answered++;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  if (answered !== count)
    throw new Error(
      `${count - answered} of ${count} requests were not answered with their echo (or their stream's end)`,
    );
}

async function main() {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: CHILD_FLAGS });
  const { url } = await nextMessage(child);
  const rows = [];
  const readings = [];
  for (let phase = 1; phase <= PHASES; phase++) {
    await drive(url, PER_PHASE);
    child.send('measure');
    const reading = await nextMessage(child);
    readings.push(reading);
    rows.push([phase, phase * PER_PHASE, mib(reading.heap), mib(reading.rss)]);
  }
  child.disconnect();
  printTable(
    'serve: memory after each phase of sessionless requests',
    ['phase', 'requests', 'heap MiB (no code)', 'RSS MiB'],
    rows,
  );
  const counted = (PHASES - 1) * PER_PHASE;
  const perRequest = (readings[PHASES - 1].heap - readings[0].heap) / counted;
  const rssPerRequest = (readings[PHASES - 1].rss - readings[0].rss) / counted;
  console.log(
    `\nkept per request, phases 2–${PHASES}: heap ${round(perRequest, 0)} bytes, RSS ${round(rssPerRequest, 0)} bytes`,
  );
  writeResult(
    'serve-memory',
    [
      {
        workload: 'serve, sessionless requests',
        subject: 'agentctl',
        metric: 'heap kept per request',
        value: round(perRequest, 0),
        unit: 'bytes',
      },
    ],
    { phases: PHASES, perPhase: PER_PHASE, readings },
  );
}

if (process.argv.includes('--child')) await server();
else await main();
