// `agentctl serve` over its OpenAI-compatible endpoint: a one-turn echo agent answering streaming
// chat completions from 1, 50 and 500 concurrent clients (each sends its next request as soon as
// the last one ends): requests/s, p50/p99 latency (request sent to last byte read) and the
// server's peak RSS, beside the floor: a bare hono handler on @hono/node-server streaming the same
// bytes, chunk by chunk. Both servers run in their own processes at the same time and the
// subjects alternate within every level. Run after a build:
//   pnpm build && node bench/serve.js
// Knobs: BENCH_SERVE_MS (time per subject per level, default 3000), BENCH_SERVE_ROUNDS (default 2).
// Prints a table and writes bench/results/serve.json.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mib, percentile, printTable, round, writeResult } from './lib/report.js';

const LEVELS = [1, 50, 500];
const BUDGET_MS = Number(process.env.BENCH_SERVE_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 2);
const PROMPT = 'the quick brown fox jumps over the lazy dog';
const BODY = JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content: PROMPT }] });
const repo = fileURLToPath(new URL('..', import.meta.url));

// The floor: the least an HTTP server on the same stack can do for the same answer.
async function floor(chunksFile) {
  const require = createRequire(join(repo, 'packages/server/package.json'));
  const { Hono } = require('hono');
  const { stream } = require('hono/streaming');
  const { serve } = require('@hono/node-server');
  const chunks = JSON.parse(readFileSync(chunksFile, 'utf8'));
  const app = new Hono();
  app.post('/v1/chat/completions', async (c) => {
    await c.req.json();
    c.header('content-type', 'text/event-stream');
    return stream(c, async (out) => {
      for (const chunk of chunks) await out.write(chunk);
    });
  });
  serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
    console.log(`listening on http://127.0.0.1:${info.port}`),
  );
}

function start(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

// The kernel keeps each process's peak RSS (VmHWM); writing 5 to clear_refs resets it per level.
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5');
const peakRss = (pid) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

async function request(url) {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: BODY,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('[DONE]') || !text.includes('"content":"dog"'))
    throw new Error(`bad answer (${response.status}): ${text.slice(0, 200)}`);
  return performance.now() - started;
}

async function load(server, clients) {
  resetPeak(server.child.pid);
  const latencies = [];
  const until = performance.now() + BUDGET_MS;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) latencies.push(await request(server.url));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { requests: latencies.length, seconds, latencies, peakRss: peakRss(server.child.pid) };
}

/** Runs the benchmark, prints its table and writes its JSON. */
export async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-bench-serve-'));
  writeFileSync(join(dir, 'agentctl.yaml'), 'kind: project\nname: bench\ninclude: [agents/*.yaml]\n');
  rmSync(join(dir, 'agents'), { recursive: true, force: true });
  const agents = join(dir, 'agents');
  await import('node:fs/promises').then((fs) => fs.mkdir(agents));
  writeFileSync(
    join(agents, 'echo.yaml'),
    'kind: agent\nname: echo\nmodel: offline/echo\ninstruction: Echo.\n',
  );
  const bin = join(repo, 'packages/cli/bin/agentctl.js');
  const agentctl = await start(
    [bin, 'serve', '--port', '0', '--max-runs', '10000', '--log-format', 'json'],
    dir,
  );
  // The floor streams exactly what agentctl streamed for this prompt, chunk by chunk.
  const sample = await (
    await fetch(`${agentctl.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
    })
  ).text();
  const chunks = sample.split(/(?<=\n\n)/);
  const chunksFile = join(dir, 'chunks.json');
  writeFileSync(chunksFile, JSON.stringify(chunks));
  const bare = await start([fileURLToPath(import.meta.url), '--floor', chunksFile], dir);
  const subjects = [
    { key: 'floor', label: 'bare hono handler (floor)', server: bare },
    { key: 'agentctl', label: 'agentctl serve', server: agentctl },
  ];
  const results = [];
  try {
    for (const clients of LEVELS) {
      const runs = { floor: [], agentctl: [] };
      for (let round1 = 0; round1 < ROUNDS; round1++) {
        const order = round1 % 2 === 0 ? subjects : [...subjects].reverse();
        for (const s of order) runs[s.key].push(await load(s.server, clients));
      }
      for (const s of subjects) {
        const all = runs[s.key];
        const latencies = all.flatMap((r) => r.latencies);
        const requests = all.reduce((n, r) => n + r.requests, 0);
        const seconds = all.reduce((n, r) => n + r.seconds, 0);
        results.push({
          subject: s.key,
          label: s.label,
          clients,
          requests,
          requestsPerSecond: Math.round(requests / seconds),
          p50Ms: round(percentile(latencies, 50), 2),
          p99Ms: round(percentile(latencies, 99), 2),
          peakRssMiB: mib(Math.max(...all.map((r) => r.peakRss))),
        });
      }
    }
  } finally {
    agentctl.child.kill('SIGKILL');
    bare.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  const floorOf = (clients) => results.find((r) => r.subject === 'floor' && r.clients === clients);
  printTable(
    `serve: streaming chat completions, one-turn echo agent (${ROUNDS} × ${BUDGET_MS} ms per subject per level, subjects alternating)`,
    ['subject', 'clients', 'requests', 'req/s', '× floor', 'p50 ms', 'p99 ms', 'peak RSS MiB'],
    results.map((r) => [
      r.label,
      r.clients,
      r.requests,
      r.requestsPerSecond,
      round(r.requestsPerSecond / floorOf(r.clients).requestsPerSecond, 3),
      r.p50Ms,
      r.p99Ms,
      r.peakRssMiB,
    ]),
  );
  const summary = results.flatMap((r) =>
    ['requestsPerSecond', 'p50Ms', 'p99Ms', 'peakRssMiB'].map((metric) => ({
      workload: `serve, ${r.clients} streaming clients`,
      subject: r.label,
      metric,
      value: r[metric],
      baseline: r.subject === 'floor',
    })),
  );
  return writeResult('serve', summary, { levels: LEVELS, budgetMs: BUDGET_MS, rounds: ROUNDS, results });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--floor');
  if (at > 0) await floor(process.argv[at + 1]);
  else await main();
}
