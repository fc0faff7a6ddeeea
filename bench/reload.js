// Hot reload: the time from a file's write to the new generation being live (watchProject's
// onGeneration), p50 and p95 over 100 edits of a 50-agent project, without the debounce (0 ms)
// and with it (150 ms, the default). Two projects: YAML only, and the same with a module tool
// (each generation then loads its modules in a fresh worker). Run after `npx tsc -b`:
//   node bench/reload.js
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile, round, writeResult } from './lib/report.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { watchProject, formatDiagnostic } = await import(
  pathToFileURL(join(repo, 'packages/config/dist/index.js')).href
);

const AGENTS = 50;
const FILES = 10;
const EDITS = 100;
// Time between edits, as a person saving: lets the previous generation settle.
const PAUSE_MS = Number(process.env.RELOAD_PAUSE_MS ?? 500);

const agentDoc = (n, version, withModule) =>
  [
    'kind: agent',
    `name: agent_${n}`,
    `description: Agent ${n}, version ${version}.`,
    `model: ${n % 2 === 0 ? 'fast' : 'offline/echo'}`,
    `instruction: You are agent ${n}. Help {{ state.customer }}.`,
    `tools: [lookup${withModule && n % 5 === 0 ? ', { module: ../tools/count.ts }' : ''}]`,
    'limits: { max_iterations: 8, timeout: 2m }',
  ].join('\n');

const fileText = (f, version, withModule) =>
  `${Array.from({ length: AGENTS / FILES }, (_, i) => agentDoc(f * (AGENTS / FILES) + i, version, withModule)).join('\n---\n')}\n`;

async function generate(withModule) {
  const root = await mkdtemp(join(tmpdir(), 'agentctl-bench-reload-'));
  await mkdir(join(root, 'agents'), { recursive: true });
  await mkdir(join(root, 'tools'), { recursive: true });
  await writeFile(join(root, 'agentctl.yaml'), 'kind: project\nname: bench\n');
  await writeFile(
    join(root, 'agents/shared.yaml'),
    'kind: model\nname: fast\nprovider: offline\nmodel: echo\n---\nkind: tool\nname: lookup\ndescription: Looks things up\nparameters: { type: object, properties: { q: { type: string } } }\ncommand: { argv: [echo, "{{ args.q }}"] }\n',
  );
  await writeFile(
    join(root, 'tools/count.ts'),
    "export default { name: 'count', description: 'Counts', parameters: { type: 'object', properties: {} }, execute: (): number => 1 };\n",
  );
  for (let f = 0; f < FILES; f++)
    await writeFile(join(root, 'agents', `file_${f}.yaml`), fileText(f, 0, withModule));
  return root;
}

async function measure(withModule, debounceMs) {
  const root = await generate(withModule);
  let wake = () => {};
  const watch = await watchProject(
    root,
    () => wake(performance.now()),
    (ds) => {
      throw new Error(`the benchmark project broke: ${ds.map(formatDiagnostic).join('\n')}`);
    },
    { project: root, debounceMs, env: {} },
  );
  if (watch.current?.runtime.agents.size !== AGENTS) throw new Error('the project did not compile');
  const samples = [];
  try {
    for (let i = 1; i <= EDITS; i++) {
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      const live = new Promise((resolve) => {
        wake = resolve;
      });
      const started = performance.now();
      await writeFile(join(root, 'agents', `file_${i % FILES}.yaml`), fileText(i % FILES, i, withModule));
      samples.push((await live) - started);
    }
  } finally {
    await watch.close();
    await rm(root, { recursive: true, force: true });
  }
  return {
    project: withModule ? `${AGENTS} agents + module tool` : `${AGENTS} agents, YAML only`,
    debounceMs,
    p50: round(percentile(samples, 50)),
    p95: round(percentile(samples, 95)),
    max: round(Math.max(...samples)),
  };
}

const results = [];
for (const withModule of [false, true])
  for (const debounceMs of [0, 150]) {
    const r = await measure(withModule, debounceMs);
    results.push(r);
    console.log(
      `${r.project.padEnd(28)} debounce ${String(debounceMs).padStart(3)} ms: write -> live p50 ${r.p50} ms, p95 ${r.p95} ms (max ${r.max})`,
    );
  }

const summary = results.flatMap((r) =>
  ['p50', 'p95'].map((stat) => ({
    workload: `reload, ${r.project}`,
    subject: `debounce ${r.debounceMs} ms`,
    metric: `write -> live ms (${stat})`,
    value: r[stat],
  })),
);
writeResult('reload', summary, { edits: EDITS, pauseMs: PAUSE_MS, results });
