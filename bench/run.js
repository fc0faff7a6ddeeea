// Runs every benchmark in bench/*.js, each in its own child process (so one's heap and RSS do not
// colour another's), then prints one table of their figures and writes bench/results/summary.json.
//   pnpm bench                      every benchmark (build first: pnpm build)
//   node bench/run.js core-loop     only the named ones (instructions runs only when named)
//   node bench/run.js --verbose     also show each benchmark's own output as it runs
// A benchmark's figures come from bench/results/<name>.json: its `summary` rows when it writes
// them, otherwise an adapter below that knows its format.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHILD_FLAGS } from './lib/core.js';
import { printTable, round } from './lib/report.js';
import { showSpread } from './lib/rounds.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));

// For benchmarks whose JSON has no `summary` rows.
const ADAPTERS = {
  validate: (r) => [
    {
      workload: `validate, ${r.agents} agents`,
      subject: 'bare yaml parse',
      metric: 'ms',
      value: r.yamlParseMedianMs,
      baseline: true,
    },
    {
      workload: `validate, ${r.agents} agents`,
      subject: 'agentctl loadProject',
      metric: 'ms',
      value: r.loadProjectMedianMs,
      ratio: r.ratio,
    },
  ],
};

function runOne(file, verbose) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...CHILD_FLAGS, file], {
      cwd: repo,
      stdio: ['ignore', verbose ? 'inherit' : 'pipe', verbose ? 'inherit' : 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (code) =>
      resolve({ code, output, seconds: round((performance.now() - started) / 1000, 1) }),
    );
  });
}

function rowsOf(name, startedAt) {
  const path = `${here}results/${name}.json`;
  if (!existsSync(path)) return undefined;
  const result = JSON.parse(readFileSync(path, 'utf8'));
  const date = Date.parse(result.date ?? '');
  if (Number.isFinite(date) && date < startedAt) return undefined; // left over from an earlier run
  if (Array.isArray(result.summary)) return result.summary;
  return ADAPTERS[name]?.(result);
}

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.filter((a) => !a.startsWith('--'));
// Run only when named: minutes under valgrind.
const ON_REQUEST = new Set(['instructions']);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js')
  .map((f) => basename(f, '.js'))
  .filter((name) => (only.length === 0 ? !ON_REQUEST.has(name) : only.includes(name)))
  .sort();
if (!existsSync(`${repo}packages/core/dist/bundle/index.js`)) {
  console.error('the packages are not built: run `pnpm build` first');
  process.exit(2);
}

const rows = [];
const failed = [];
for (const name of files) {
  process.stdout.write(`${name} ... `);
  const startedAt = Date.now();
  const { code, output, seconds } = await runOne(`${here}${name}.js`, verbose);
  const summary = code === 0 ? rowsOf(name, startedAt) : undefined;
  if (code !== 0) {
    failed.push(name);
    console.log(`failed (exit ${code}) after ${seconds} s\n${output.trim()}`);
    continue;
  }
  console.log(`${seconds} s`);
  for (const row of summary ?? [
    { workload: name, subject: '-', metric: 'no figures in its JSON', value: '' },
  ]) {
    rows.push({ benchmark: name, ...row });
  }
}

// Each row's ratio is the one its benchmark took pair by pair when it has one, otherwise the
// quotient of medians against the baseline row of the same workload and metric.
const ratioOf = (row) => {
  if (row.ratio) return showSpread(row.ratio, '×');
  const base = rows.find((r) => r.baseline && r.workload === row.workload && r.metric === row.metric);
  return base && typeof row.value === 'number' && base.value ? `${round(row.value / base.value, 2)}×` : '';
};
const shownValue = (row) => (row.spread ? showSpread(row.spread) : row.value);
printTable(
  'agentctl benchmarks: median (min–max) over interleaved rounds; ratios against the baseline row of the same workload, pair by pair where the benchmark pairs',
  ['workload', 'subject', 'metric', 'value', 'ratio'],
  rows.map((r) => [r.workload, r.subject, r.metric, shownValue(r), ratioOf(r)]),
);
printHeadline(rows);

// The table: one column per subject, one row per throughput figure, then agentctl's ratios to
// AI SDK 7, each taken round by round within this run.
function printHeadline(all) {
  const figures = [
    ['core-loop', 'µs/step', '50-step tool loop, µs/step', 'per-step cost ≤ ⅛ of AI SDK 7'],
    ['concurrent-runs', 'runs/s', '1,000 concurrent runs × 5 steps, runs/s', 'runs/s ≥ 5× AI SDK 7'],
    ['concurrent-runs', 'peak RSS MiB', 'same, peak RSS MiB', 'peak RSS ≤ ½ of AI SDK 7'],
  ];
  const pick = (bench, metric) => all.filter((r) => r.benchmark === bench && r.metric === metric && r.key);
  const keys = [...new Set(figures.flatMap(([b, m]) => pick(b, m).map((r) => r.key)))];
  if (keys.length === 0) return;
  const labelOf = (key) => all.find((r) => r.key === key)?.subject ?? key;
  printTable(
    'throughput (each subject in its own process, rounds interleaved): median (min–max)',
    ['', ...keys.map(labelOf)],
    figures.map(([bench, metric, title]) => [
      title,
      ...keys.map((key) => {
        const row = pick(bench, metric).find((r) => r.key === key);
        return row ? showSpread(row.spread) : '-';
      }),
    ]),
  );
  const against = all.some((r) => r.key === 'ai7') ? 'AI SDK 7' : undefined;
  if (!against) return;
  printTable(
    `agentctl ÷ ${against}, ratio taken round by round: median (min–max)`,
    ['', 'agentctl agent.run', 'agentctl Runner', 'target'],
    figures.map(([bench, metric, title, target]) => [
      title,
      ...['agent', 'runner'].map((key) => {
        const row = pick(bench, metric).find((r) => r.key === key);
        return row?.vsAi7 ? showSpread(row.vsAi7, '×') : '-';
      }),
      target,
    ]),
  );
}
writeFileSync(
  `${here}results/summary.json`,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows, failed }, null, 2)}\n`,
);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
