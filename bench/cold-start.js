// Cold start of `agentctl run hello "hi" --json` from /work/main (the repository is an agentctl
// project): from spawning the process to its first stdout line (the first event) and to its exit,
// beside bare `node -e 0` and a bare import of the built core. Run after a build:
//   npx tsc -b && node bench/cold-start.js
// Prints a table and writes bench/results/cold-start.json.
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, printTable, round, writeResult } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const repo = fileURLToPath(new URL('..', import.meta.url));
const coreUrl = pathToFileURL(`${repo}packages/core/dist/index.js`).href;

const COMMANDS = [
  { key: 'node', label: 'node -e 0', args: ['-e', '0'] },
  {
    key: 'import-core',
    label: 'node -e "import(core dist)"',
    args: ['-e', `import(${JSON.stringify(coreUrl)})`],
  },
  {
    key: 'agentctl',
    label: 'agentctl run hello "hi" --json',
    args: ['packages/cli/bin/agentctl.js', 'run', 'hello', 'hi', '--json'],
    expectFirst: /"type":"run_start"/,
  },
];

function once(command) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, command.args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstLineMs;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (firstLineMs === undefined && stdout.includes('\n')) firstLineMs = performance.now() - started;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const exitMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${command.label} exited ${code}: ${stderr.trim()}`));
      const first = stdout.split('\n')[0];
      if (command.expectFirst && !command.expectFirst.test(first)) {
        return reject(new Error(`${command.label}: unexpected first line ${first.slice(0, 200)}`));
      }
      if (command.expectFirst && !/"type":"run_end"/.test(stdout)) {
        return reject(new Error(`${command.label}: no run_end event in its output`));
      }
      resolve({ firstLineMs, exitMs });
    });
  });
}

/** Runs the benchmark, prints its table and writes its JSON. */
export async function main() {
  const results = [];
  for (const command of COMMANDS) {
    await once(command); // warms the file system cache
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once(command));
    const firsts = runs.map((r) => r.firstLineMs).filter((ms) => ms !== undefined);
    results.push({
      key: command.key,
      label: command.label,
      runs: RUNS,
      firstLineMs: firsts.length > 0 ? round(median(firsts), 1) : null,
      exitMs: round(median(runs.map((r) => r.exitMs)), 1),
      exitRunsMs: runs.map((r) => round(r.exitMs, 1)),
    });
  }
  const bare = results[0].exitMs;
  printTable(
    `cold start: median of ${RUNS} spawns (from spawn; ratios against node -e 0 exit)`,
    ['command', 'first stdout line ms', 'exit ms', 'first line ÷ node', 'exit ÷ node'],
    results.map((r) => [
      r.label,
      r.firstLineMs ?? '-',
      r.exitMs,
      r.firstLineMs === null ? '-' : round(r.firstLineMs / bare, 2),
      round(r.exitMs / bare, 2),
    ]),
  );
  const summary = results.flatMap((r) => [
    ...(r.firstLineMs === null
      ? []
      : [{ workload: 'cold start', subject: r.label, metric: 'ms to first event', value: r.firstLineMs }]),
    {
      workload: 'cold start',
      subject: r.label,
      metric: 'ms to exit',
      value: r.exitMs,
      baseline: r.key === 'node',
    },
  ]);
  return writeResult('cold-start', summary, { results });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
