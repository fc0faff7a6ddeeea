// Times `loadProject` as `agentctl validate` runs it (the command line's registry, so provider,
// built-in and option checks included) on a generated project of 1,000 agents in 200 files, beside
// a bare `yaml` parse of the same files read from disk, in the same process, in interleaved pairs
// with a full GC before each side; the ratio is taken pair by pair. Run after `pnpm build`:
//   node bench/validate.js
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gc, median } from './lib/report.js';
import { pairedRatio, showSpread } from './lib/rounds.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const configDir = join(repo, 'packages/config');
const { loadProject } = await import(pathToFileURL(join(configDir, 'dist/index.js')).href);
const { defaultRegistry } = await import(
  pathToFileURL(join(repo, 'packages/cli/dist/default-registry.js')).href
);
const registry = defaultRegistry();
const require = createRequire(join(configDir, 'package.json'));
const { LineCounter, parseAllDocuments } = await import(pathToFileURL(require.resolve('yaml')).href);

const FILES = 200;
const AGENTS_PER_FILE = 5;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

function agentDoc(file, i) {
  const n = file * AGENTS_PER_FILE + i;
  return [
    'kind: agent',
    `name: agent_${n}`,
    `description: Generated agent number ${n}, for the validate benchmark.`,
    `model: ${n % 2 === 0 ? 'fast' : 'offline/echo'}`,
    'instruction: |',
    `  You are agent ${n}. Help {{ state.customer }} with {{ input }}.`,
    'tools: [lookup]',
    ...(n === 0 ? ['output_key: customer'] : []),
    'middleware: [{ retry: { max_attempts: 3 } }]',
    'limits: { max_iterations: 8, timeout: 2m, tool_timeout: 30s }',
    `temperature: 0.${n % 10}`,
  ].join('\n');
}

async function generate() {
  const root = await mkdtemp(join(tmpdir(), 'agentctl-bench-'));
  await mkdir(join(root, 'agents'), { recursive: true });
  await writeFile(join(root, 'agentctl.yaml'), 'kind: project\nname: bench\n');
  const shared =
    'kind: model\nname: fast\nprovider: offline\nmodel: echo\n---\nkind: tool\nname: lookup\ndescription: Looks things up\nparameters: { type: object, properties: { q: { type: string } } }\ncommand: { argv: [echo, "{{ args.q }}"] }\n';
  await writeFile(join(root, 'agents/shared.yaml'), shared);
  for (let f = 0; f < FILES; f++) {
    const docs = Array.from({ length: AGENTS_PER_FILE }, (_, i) => agentDoc(f, i));
    await writeFile(
      join(root, 'agents', `file_${String(f).padStart(3, '0')}.yaml`),
      `${docs.join('\n---\n')}\n`,
    );
  }
  return root;
}

const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const root = await generate();
try {
  const first = await loadProject({ project: root, env: {}, registry });
  if (first.diagnostics.length > 0)
    throw new Error(`generated project is not valid: ${first.diagnostics[0].message}`);
  const agents = first.specs.agent.size;

  // Interleaved pairs, a full GC before each side, the ratio taken pair by pair.
  const loadTimes = [];
  const parseTimes = [];
  let heapPeak = 0;
  // Read as the loader reads (synchronously), so only parsing and checking differ.
  const bareParse = () => {
    for (const file of first.files) {
      const text = readFileSync(file, 'utf8');
      for (const doc of parseAllDocuments(text, { lineCounter: new LineCounter() })) doc.toJS();
    }
  };
  bareParse(); // both sides warm before the first timed pair
  for (let i = 0; i < RUNS; i++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    let t = performance.now();
    const project = await loadProject({ project: root, env: {}, registry });
    loadTimes.push(performance.now() - t);
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed - before);
    if (project.specs.agent.size !== agents) throw new Error('agent count changed between runs');
    gc();
    t = performance.now();
    bareParse();
    parseTimes.push(performance.now() - t);
  }
  const ratio = pairedRatio(loadTimes, parseTimes);

  const result = {
    date: new Date().toISOString(),
    node: process.version,
    files: first.files.length,
    agents,
    runs: RUNS,
    loadProjectMedianMs: Math.round(median(loadTimes)),
    loadProjectRunsMs: loadTimes.map(Math.round),
    yamlParseMedianMs: Math.round(median(parseTimes)),
    yamlParseRunsMs: parseTimes.map(Math.round),
    ratio,
    heapDeltaMiB: mib(heapPeak),
    rssMiB: mib(process.memoryUsage().rss),
  };
  console.log(`validate benchmark: ${result.agents} agents in ${result.files} files (median of ${RUNS})`);
  console.table({
    'loadProject (parse + schema + rules)': { ms: result.loadProjectMedianMs },
    'bare yaml read + parseAllDocuments + toJS': { ms: result.yamlParseMedianMs },
  });
  console.log(`loadProject ÷ bare parse, pair by pair: ${showSpread(ratio, '×')}`);
  console.log(`heap growth during one load: ${result.heapDeltaMiB} MiB; process RSS: ${result.rssMiB} MiB`);
  await mkdir(join(repo, 'bench/results'), { recursive: true });
  await writeFile(join(repo, 'bench/results/validate.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
