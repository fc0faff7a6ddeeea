// Cold start of `agentctl run hello "hi" --json` in this repository (itself an agentctl project):
// from spawning the process to its first stdout line (the first event) and to its exit, beside bare
// `node -e 0` and a bare import of the built core (its bundle, as installed users load it), in
// interleaved rounds with each ratio taken against the `node -e 0` of its own round. The same
// command runs three times a round: as a user runs it again (the project's cache,
// .agentctl/cache/parsed.json, holds its files and checks), as after an edit of agents/hello.yaml
// (that file's parse dropped from the cache) and as after a fresh clone (the cache removed); each
// change to the cache is made outside the timing. Run after a full build, which also bundles the
// CLI (`tsc -b` alone leaves the bin on the unbundled modules):
//   pnpm build && node bench/cold-start.js
// Prints a table and writes bench/results/cold-start.json.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseCacheKey } from '../packages/config/dist/load/parse-cache.js';
import { coreBundle } from './lib/core.js';
import { printTable, round, writeResult } from './lib/report.js';
import { pairedRatio, showSpread, spread } from './lib/rounds.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const repo = fileURLToPath(new URL('..', import.meta.url));
// Core as an installed user imports it: its bundle (lib/core.js).
const coreUrl = pathToFileURL(coreBundle()).href;
const runHello = ['packages/cli/bin/agentctl.js', 'run', 'hello', 'hi', '--json'];

const COMMANDS = [
  { key: 'node', label: 'node -e 0', args: ['-e', '0'] },
  {
    key: 'import-core',
    label: 'node -e "import(core bundle)"',
    args: ['-e', `import(${JSON.stringify(coreUrl)})`],
  },
  {
    key: 'agentctl',
    label: 'agentctl run hello "hi" --json',
    args: runHello,
    expectFirst: /"type":"run_start"/,
  },
  {
    key: 'agentctl-one-edited',
    label: 'same, after an edit of agents/hello.yaml',
    args: runHello,
    expectFirst: /"type":"run_start"/,
    before: dropFromCache('agents/hello.yaml'),
  },
  {
    key: 'agentctl-edited',
    label: 'same, files changed (parse cache empty)',
    args: runHello,
    expectFirst: /"type":"run_start"/,
    before: () => rmSync(`${repo}.agentctl/cache/parsed.json`, { force: true }),
  },
];

// Drops one file's parse from the project's cache, as an edit of that file would (its other
// entries, and the checks of options and offline files, stay).
function dropFromCache(file) {
  const cache = `${repo}.agentctl/cache/parsed.json`;
  return () => {
    const stored = JSON.parse(readFileSync(cache, 'utf8'));
    const key = parseCacheKey(readFileSync(`${repo}${file}`));
    if (!(key in stored.entries)) throw new Error(`${file} is not in ${cache}`);
    delete stored.entries[key];
    writeFileSync(cache, JSON.stringify(stored));
  };
}

function once(command) {
  command.before?.();
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
  for (const command of COMMANDS) await once(command); // warms the file system cache
  // Interleaved: node, import, agentctl, node, import, agentctl, ... so that drift in the machine's
  // speed falls on every command alike; each ratio is taken against the `node -e 0` of its own round.
  const runs = COMMANDS.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [c, command] of COMMANDS.entries()) runs[c].push(await once(command));
  }
  const bare = runs[0].map((r) => r.exitMs);
  const results = COMMANDS.map((command, c) => {
    const exits = runs[c].map((r) => r.exitMs);
    const firsts = runs[c].map((r) => r.firstLineMs);
    const hasFirst = firsts.every((ms) => ms !== undefined);
    return {
      key: command.key,
      label: command.label,
      runs: RUNS,
      exitMs: spread(exits, 1),
      exitVsNode: pairedRatio(exits, bare),
      firstLineMs: hasFirst ? spread(firsts, 1) : null,
      firstLineVsNode: hasFirst ? pairedRatio(firsts, bare) : null,
      exitRunsMs: exits.map((ms) => round(ms, 1)),
    };
  });
  printTable(
    `cold start: ${RUNS} interleaved rounds, ms from spawn, median (min–max); ratios against the node -e 0 exit of the same round`,
    ['command', 'first stdout line ms', 'exit ms', 'first line ÷ node', 'exit ÷ node'],
    results.map((r) => [
      r.label,
      r.firstLineMs ? showSpread(r.firstLineMs) : '-',
      showSpread(r.exitMs),
      r.firstLineVsNode ? showSpread(r.firstLineVsNode, '×') : '-',
      showSpread(r.exitVsNode, '×'),
    ]),
  );
  const summary = results.flatMap((r) => [
    ...(r.firstLineMs === null
      ? []
      : [
          {
            workload: 'cold start',
            subject: r.label,
            metric: 'ms to first event',
            value: r.firstLineMs.median,
            spread: r.firstLineMs,
            ratio: r.firstLineVsNode,
          },
        ]),
    {
      workload: 'cold start',
      subject: r.label,
      metric: 'ms to exit',
      value: r.exitMs.median,
      spread: r.exitMs,
      ratio: r.exitVsNode,
      baseline: r.key === 'node',
    },
  ]);
  return writeResult('cold-start', summary, { results });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
