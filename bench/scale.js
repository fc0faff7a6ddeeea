// Beyond one machine (docs/deploy.md), in two sections:
//   runs:   queued runs/s with 1, 2 and 3 `agentctl worker` processes on one Redis and the file
//           store, each run a tool call and two model turns (offline `auto` model, `echo` tool);
//   append: (PostgreSQL and file store append cost; added by the store's benchmark).
// Run after a build:  pnpm build && node bench/scale.js [runs]
// Knobs: BENCH_SCALE_RUNS (runs per measure, default 300), BENCH_SCALE_ROUNDS (default 3),
//        BENCH_SCALE_CONCURRENCY (runs at once per worker, default 8).
// Each worker is its own process; the driver enqueues from this process, waits for the queue's
// completed count and checks every run's end. Subjects (1, 2, 3 workers) alternate round by round (a fresh Redis and project each time),
// and the ratios to one worker are taken pair by pair. Workers' CPU time per run (user + system,
// from /proc) shows what limits throughput on this machine.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pairedRatio, showSpread, spread } from './lib/rounds.js';
import { printTable, round, writeResult } from './lib/report.js';

const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 300);
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 8);
const WORKERS = [1, 2, 3];
const repo = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(repo, 'packages/cli/bin/agentctl.js');

const PROJECT = {
  'agentctl.yaml': 'kind: project\nname: scale\n',
  'agents/clerk.yaml': `kind: agent
name: clerk
description: Stamps a form, then says so
model: offline/auto
tools: [stamp]
---
kind: tool
name: stamp
description: Stamps the form
command:
  argv: [echo, stamped]
needs_approval: false
`,
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Starts a process and resolves once its output matches `ready`.
function start(command, args, options, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      if (ready.test(out)) resolve(child);
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${out}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

// User + system CPU seconds a process has used (Linux /proc; 0 elsewhere).
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function measure(workerCount, queueModule) {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-scale-'));
  for (const [path, text] of Object.entries(PROJECT)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const port = await freePort();
  const redis = await start(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {},
    /Ready to accept connections/,
  );
  const url = `redis://127.0.0.1:${port}`;
  const env = { ...process.env, AGENTCTL_QUEUE_URL: url, NO_COLOR: '1' };
  const workers = await Promise.all(
    Array.from({ length: workerCount }, () =>
      start(process.execPath, [BIN, 'worker', '--concurrency', String(CONCURRENCY)], { cwd: dir, env }, /worker ready/),
    ),
  );
  const { RunQueue, connectRedis } = queueModule;
  const connection = await connectRedis(url);
  const queue = new RunQueue(connection);
  try {
    // A warm-up batch, unmeasured: every worker slot has run once before the clock starts.
    for (let i = 0; i < workerCount * CONCURRENCY; i++) await queue.enqueue({ agent: 'clerk', input: 'warm' });
    await finish(queue, [], workerCount * CONCURRENCY);
    const cpuBefore = workers.map((w) => cpuSeconds(w.pid));
    const redisBefore = cpuSeconds(redis.pid);
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => queue.enqueue({ agent: 'clerk', input: `form ${i}` })),
    );
    const ends = await finish(queue, runs, workerCount * CONCURRENCY + RUNS);
    const seconds = (performance.now() - started) / 1000;
    const complete = ends.filter((end) => end?.status === 'complete' && end.output?.includes('stamped')).length;
    if (complete !== RUNS) throw new Error(`${RUNS - complete} run(s) did not complete with the tool's result`);
    const workerCpu = workers.reduce((sum, w, i) => sum + cpuSeconds(w.pid) - cpuBefore[i], 0);
    return {
      runsPerSecond: RUNS / seconds,
      workerCpuMsPerRun: (workerCpu * 1000) / RUNS,
      redisCpuMsPerRun: ((cpuSeconds(redis.pid) - redisBefore) * 1000) / RUNS,
    };
  } finally {
    await queue.close();
    connection.disconnect();
    await Promise.all([...workers, redis].map(stop));
    rmSync(dir, { recursive: true, force: true });
  }
}

// Waits until the queue has completed `total` jobs, then reads how each run ended (its stream's
// last entry). Polling the counts keeps the driver's own work small beside the workers'.
async function finish(queue, runs, total) {
  while ((await queue.depth()).completed < total) await new Promise((resolve) => setTimeout(resolve, 20));
  return Promise.all(runs.map(({ runId }) => queue.events.ending(runId)));
}

async function runsSection() {
  const queueModule = await import(pathToFileURL(join(repo, 'packages/queue/dist/index.js')).href);
  const byCount = Object.fromEntries(WORKERS.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) for (const n of WORKERS) byCount[n].push(await measure(n, queueModule));
  const rows = WORKERS.map((n) => {
    const figures = byCount[n];
    const rps = spread(figures.map((f) => f.runsPerSecond), 1);
    const ratio = pairedRatio(
      figures.map((f) => f.runsPerSecond),
      byCount[1].map((f) => f.runsPerSecond),
    );
    const cpu = spread(figures.map((f) => f.workerCpuMsPerRun), 2);
    const redisCpu = spread(figures.map((f) => f.redisCpuMsPerRun), 2);
    return { n, rps, ratio, cpu, redisCpu };
  });
  printTable(
    `queued runs (${RUNS} runs × 1 tool call, ${CONCURRENCY} per worker, file store; ${cpus().length} cores; median (min–max) of ${ROUNDS} rounds)`,
    ['workers', 'runs/s', 'vs 1 worker', 'worker CPU ms/run', 'redis CPU ms/run'],
    rows.map((r) => [r.n, showSpread(r.rps), showSpread(r.ratio, '×'), showSpread(r.cpu), showSpread(r.redisCpu)]),
  );
  return {
    summary: rows.map((r) => ({
      workload: 'queued runs',
      subject: `${r.n} worker${r.n > 1 ? 's' : ''}`,
      metric: 'runs/s',
      value: round(r.rps.median, 1),
      unit: 'runs/s',
    })),
    details: { runs: RUNS, rounds: ROUNDS, concurrency: CONCURRENCY, cores: cpus().length, rows, raw: byCount },
  };
}

const section = process.argv[2] ?? 'runs';
if (section === 'runs') {
  const { summary, details } = await runsSection();
  writeResult('scale', summary, { runs: details });
} else {
  console.error(`unknown section ${section}; expected runs`);
  process.exitCode = 2;
}
