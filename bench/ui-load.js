// The dev UI's page load, in Debian's headless Chromium (playwright-core, no browser download):
// the BUILT `agentctl dev --ui` on a copy of the example project (17 agents), the page opened
// BENCH_UI_RUNS times (default 10), each round a cold load (new browser context: empty cache,
// fresh cookie sign-in) then a warm one (same context: the hashed script and style come from the
// cache). Figures from the browser's Navigation Timing, in ms from navigation start: first byte of
// index.html, DOMContentLoaded, load, and "ready" (the `agentctl:ready` mark: the project graph
// drawn from GET /project); plus the bytes the page transferred. Median (min–max) over the runs.
//   pnpm build && node bench/ui-load.js

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { printTable, writeResult } from './lib/report.js';
import { showSpread, spread } from './lib/rounds.js';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = Number(process.env.BENCH_UI_RUNS ?? 10);
const TOKEN = 'bench-ui-token';
const repo = fileURLToPath(new URL('..', import.meta.url));

if (!existsSync(CHROMIUM)) {
  console.error(`ui-load: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);
  process.exit(0);
}

// A copy of the example project; files.yaml starts an MCP server from node_modules, which it has not.
const project = mkdtempSync(join(tmpdir(), 'agentctl-ui-load-'));
cpSync(join(repo, 'agentctl.yaml'), join(project, 'agentctl.yaml'));
cpSync(join(repo, 'agents'), join(project, 'agents'), { recursive: true });
rmSync(join(project, 'agents/files.yaml'));

const dev = spawn(
  process.execPath,
  [join(repo, 'packages/cli/bin/agentctl.js'), 'dev', '--ui', '--port', '0'],
  {
    cwd: project,
    env: { ...process.env, AGENTCTL_SERVE_TOKEN: TOKEN, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  },
);
const url = await new Promise((resolve, reject) => {
  let out = '';
  dev.stdout.setEncoding('utf8').on('data', (text) => {
    out += text;
    const match = /ui: (http:\/\/\S+)\n/.exec(out);
    if (match) resolve(match[1]);
  });
  dev.on('exit', (code) => reject(new Error(`agentctl dev --ui exited (${code}) before serving`)));
});

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});

// One load of `address` in `page`, until the graph is drawn; its Navigation Timing figures.
async function load(page, address) {
  await page.goto(address);
  await page.waitForFunction(() => performance.getEntriesByName('agentctl:ready').length > 0, null, {
    timeout: 60_000,
  });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const resources = performance.getEntriesByType('resource');
    return {
      firstByte: nav.responseStart,
      domContentLoaded: nav.domContentLoadedEventEnd,
      load: nav.loadEventEnd,
      ready: performance.getEntriesByName('agentctl:ready')[0].startTime,
      bytes: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
    };
  });
}

const figures = { cold: [], warm: [] };
try {
  // One unmeasured load, so the server's first-request work and the file cache are not in round 1.
  const first = await browser.newContext();
  await load(await first.newPage(), url);
  await first.close();
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The printed address signs in (cookie) and redirects to /ui/: part of a first visit.
    figures.cold.push(await load(page, url));
    figures.warm.push(await load(page, new URL('/ui/', url).href));
    await context.close();
  }
} finally {
  await browser.close();
  dev.kill('SIGTERM');
  rmSync(project, { recursive: true, force: true });
}

const METRICS = ['firstByte', 'domContentLoaded', 'load', 'ready', 'bytes'];
const rows = [];
const summary = [];
for (const kind of ['cold', 'warm']) {
  const row = [kind];
  for (const metric of METRICS) {
    const s = spread(
      figures[kind].map((f) => f[metric]),
      1,
    );
    row.push(showSpread(s));
    summary.push({
      workload: `ui page load (${kind})`,
      subject: 'agentctl dev --ui',
      metric: metric === 'bytes' ? 'bytes' : `${metric} ms`,
      value: s.median,
      min: s.min,
      max: s.max,
    });
  }
  rows.push(row);
}
printTable(
  `dev UI page load in headless Chromium, ${RUNS} runs each, median (min–max)`,
  ['load', 'first byte ms', 'DOMContentLoaded ms', 'load ms', 'ready ms', 'bytes'],
  rows,
);
writeResult('ui-load', summary, { runs: RUNS, figures });
