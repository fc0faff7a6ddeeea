import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { project } from './helpers.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const EDITS = 200;

// The child edits a module tool EDITS times through watchProject, calling the tool on every
// generation, and prints heapUsed after forced GC before and after. Each version holds ~160 kB at
// module scope, so a module kept alive per edit would add ~30 MB.
const SCRIPT = `
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { watchProject, formatDiagnostic } from ${JSON.stringify(INDEX)};
const [root, mode, edits] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const toolFile = join(root, 'tools/t.ts');
const source = (i) => \`const big: number[] = new Array(20000).fill(\${i});
export default { name: 't', description: 'version \${i}', parameters: { type: 'object', properties: {} },
  execute: () => 'v\${i}:' + big.length };
\`;
await writeFile(toolFile, source(0));
let wake = () => {};
// Without a debounce a reload can read a file half written: reported, then the next event fixes it.
const failures = [];
// Every generation, weakly: a retired one still reachable after GC is a leak, however small.
const generations = [];
const w = await watchProject(root, (g) => { generations.push(new WeakRef(g)); wake(); }, (ds) => { failures.push(ds.map(formatDiagnostic).join('\\n')); },
  { project: root, debounceMs: 0, isolateModules: mode === 'worker' });
async function answer() {
  const lease = w.acquire();
  try {
    return (await lease.generation.runtime.agents.get('a').run('go')).toolCalls[0]?.result;
  } finally {
    lease.release();
  }
}
// A save can be seen as two changes (truncate, write): wait for the generation that has this version.
async function edit(i) {
  await writeFile(toolFile, source(i));
  while (true) {
    const live = new Promise((resolve) => { wake = resolve; });
    if ((await answer()) === 'v' + i + ':20000') return;
    await live;
  }
}
async function heap() {
  for (let i = 0; i < 4; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
  return { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
}
for (let i = 1; i <= 10; i++) await edit(i);
const before = await heap();
for (let i = 11; i <= 10 + edits; i++) await edit(i);
const after = await heap();
await w.close();
const alive = generations.filter((ref) => ref.deref() !== undefined).length;
console.log(JSON.stringify({ before, after, generations: w.current?.id, alive, failures: failures.length }));
`;

function child(root: string, mode: 'worker' | 'inprocess'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--conditions=agentctl-source',
        '--import',
        'tsx',
        join(root, 'measure.mts'),
        root,
        mode,
        String(EDITS),
      ],
      { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    proc.stdout.on('data', (c) => {
      out += c;
    });
    proc.stderr.on('data', (c) => {
      err += c;
    });
    proc.on('close', (code) => {
      if (code !== 0) reject(new Error(`measure exited ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) as string));
    });
  });
}

describe('watchProject memory', () => {
  it(`keeps the heap within a small bound over ${EDITS} edits of a module tool`, async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/t.ts }]\n',
      'tools/t.ts': '',
    });
    await writeFile(join(root, 'measure.mts'), SCRIPT);
    const result = (await child(root, 'worker')) as {
      before: { heap: number; rss: number };
      after: { heap: number; rss: number };
      generations: number;
      alive: number;
      failures: number;
    };
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    const growth = result.after.heap - result.before.heap;
    console.log(
      `heapUsed after ${EDITS} module edits (worker per generation): ${mb(result.before.heap)} MB -> ${mb(result.after.heap)} MB (${mb(growth)} MB); rss ${mb(result.before.rss)} -> ${mb(result.after.rss)} MB; ${result.generations} generations (${result.alive} still reachable), ${result.failures} half-written reads reported`,
    );
    expect(result.generations).toBeGreaterThanOrEqual(EDITS + 11);
    expect(growth).toBeLessThan(30 * 1024 * 1024);
    // Only the live generation (and at most one being swapped) may stay reachable.
    expect(result.alive).toBeLessThanOrEqual(2);
    // 200 workers left running would hold gigabytes; terminated ones give their memory back.
    expect(result.after.rss - result.before.rss).toBeLessThan(300 * 1024 * 1024);
  }, 300_000);
});
