// Section `runs` of bench/scale.js: queued runs/s with 1, 2 and 3 `agentctl worker` processes on one
// Redis, with the sessions in the file store and in PostgreSQL. Each run is one tool call and two
// model turns (offline `auto` model, an `echo` command tool). A subject (`<store>:<workers>`) is one
// child process that starts its own redis-server and workers, enqueues a warm-up batch, then
// BENCH_SCALE_RUNS runs at once, and waits for the queue's completed count; every run's end is
// checked (complete, with the tool's result). Workers' and Redis's CPU time per run come from /proc.
// Knobs: BENCH_SCALE_RUNS (default 200), BENCH_SCALE_CONCURRENCY (runs at once per worker, default 8).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printTable, round } from './report.js';
import { pairedRatio, showSpread, spread } from './rounds.js';

const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 8);
const WORKERS = [1, 2, 3];
const STORES = ['file', 'postgres'];
const repo = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(repo, 'packages/cli/bin/agentctl.js');

const AGENT = `kind: agent
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
`;

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
    child.on('exit', (code) =>
      reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${out}`)),
    );
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

// User + system CPU seconds a process has used (Linux /proc).
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// Waits until the queue has completed `total` jobs (polling the counts keeps the driver's own work
// small beside the workers'), then reads how each run ended: its stream's last entry.
async function finish(queue, runs, total) {
  while ((await queue.depth()).completed < total) await new Promise((resolve) => setTimeout(resolve, 20));
  return Promise.all(runs.map(({ runId }) => queue.events.ending(runId)));
}

async function measure(store, workerCount, context) {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-scale-runs-'));
  const files = { 'agentctl.yaml': 'kind: project\nname: scale\n', 'agents/clerk.yaml': AGENT };
  if (store === 'postgres') {
    files['agentctl.yaml'] += 'defaults: { memory: shared }\n';
    // A schema of its own per subject: no run sees another's sessions.
    files['agents/memory.yaml'] =
      `kind: memory\nname: shared\nbackend: postgres\nurl: \${DATABASE_URL}\noptions: { schema: runs_${process.pid} }\n`;
  }
  for (const [path, text] of Object.entries(files)) {
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
  const env = { ...process.env, AGENTCTL_QUEUE_URL: url, DATABASE_URL: context.pgUrl ?? '', NO_COLOR: '1' };
  const workers = [];
  const { RunQueue, connectRedis } = await import(
    pathToFileURL(join(repo, 'packages/queue/dist/index.js')).href
  );
  const connection = await connectRedis(url);
  const queue = new RunQueue(connection);
  try {
    // One at a time: the first creates the PostgreSQL schema the others then find.
    for (let i = 0; i < workerCount; i++)
      workers.push(
        await start(
          process.execPath,
          [BIN, 'worker', '--concurrency', String(CONCURRENCY)],
          { cwd: dir, env },
          /worker ready/,
        ),
      );
    // A warm-up batch, unmeasured: every worker slot has run once before the clock starts.
    const warm = workerCount * CONCURRENCY;
    for (let i = 0; i < warm; i++) await queue.enqueue({ agent: 'clerk', input: 'warm' });
    await finish(queue, [], warm);
    const cpuBefore = workers.map((w) => cpuSeconds(w.pid));
    const redisBefore = cpuSeconds(redis.pid);
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => queue.enqueue({ agent: 'clerk', input: `form ${i}` })),
    );
    const ends = await finish(queue, runs, warm + RUNS);
    const seconds = (performance.now() - started) / 1000;
    const complete = ends.filter(
      (end) => end?.status === 'complete' && end.output?.includes('Called 1 tool(s)'),
    ).length;
    const bad = ends.find((end) => !(end?.status === 'complete' && end.output?.includes('Called 1 tool(s)')));
    if (complete !== RUNS)
      throw new Error(
        `${RUNS - complete} run(s) did not complete with the tool's result: ${JSON.stringify(bad)}`,
      );
    const workerCpu = workers.reduce((sum, w, i) => sum + cpuSeconds(w.pid) - cpuBefore[i], 0);
    return {
      runsPerSecond: RUNS / seconds,
      workerCpuMsPerRun: (workerCpu * 1000) / RUNS,
      redisCpuMsPerRun: ((cpuSeconds(redis.pid) - redisBefore) * 1000) / RUNS,
      // Share of the machine the workers used while the runs went through.
      workerCores: workerCpu / seconds,
    };
  } finally {
    await queue.close();
    connection.disconnect();
    await Promise.all([...workers, redis].map(stop));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The `runs` section, in the shape bench/scale.js runs every section in. */
export const runs = {
  title: `runs: queued runs/s by worker processes (${RUNS} runs × 1 tool call, ${CONCURRENCY} at once per worker)`,

  subjects: STORES.flatMap((store) => WORKERS.map((n) => `${store}:${n}`)),

  /** One PostgreSQL for every subject (each uses a schema of its own). */
  async prepare() {
    const { startPostgres } = await import('../../test/support/postgres.js');
    const pg = await startPostgres();
    return { context: { pgUrl: pg.url() }, dispose: () => pg.stop() };
  },

  async child(subject, context) {
    const [store, n] = subject.split(':');
    return measure(store, Number(n), context);
  },

  report(bySubject) {
    const rows = [];
    const results = [];
    for (const store of STORES) {
      const base = bySubject[`${store}:1`].map((f) => f.runsPerSecond);
      for (const n of WORKERS) {
        const figures = bySubject[`${store}:${n}`];
        const rps = spread(
          figures.map((f) => f.runsPerSecond),
          1,
        );
        const ratio = pairedRatio(
          figures.map((f) => f.runsPerSecond),
          base,
        );
        const cpu = spread(
          figures.map((f) => f.workerCpuMsPerRun),
          1,
        );
        const cores = spread(
          figures.map((f) => f.workerCores),
          2,
        );
        const redisCpu = spread(
          figures.map((f) => f.redisCpuMsPerRun),
          2,
        );
        rows.push([
          store,
          n,
          showSpread(rps),
          showSpread(ratio, '×'),
          showSpread(cpu),
          showSpread(cores),
          showSpread(redisCpu),
        ]);
        results.push({
          workload: 'queued runs',
          subject: `${store}, ${n} worker${n > 1 ? 's' : ''}`,
          metric: 'runs/s',
          value: round(rps.median, 1),
          unit: 'runs/s',
          spread: rps,
          workerCpuMsPerRun: cpu,
          workerCores: cores,
        });
      }
    }
    printTable(
      `${this.title}; ${cpus().length} cores`,
      [
        'store',
        'workers',
        'runs/s',
        'vs 1 worker',
        'worker CPU ms/run',
        'worker cores busy',
        'redis CPU ms/run',
      ],
      rows,
    );
    return results;
  },
};
