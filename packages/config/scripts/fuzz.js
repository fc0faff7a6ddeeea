// `pnpm fuzz [--runs N] [--seed S]`: generated and mutated projects through `validate` (the built
// loader with the command line's registry). Each case must give diagnostics, never a throw; no
// `internal-error`; no message over 2 KB; no read of the canary folder beside the project (every
// case tries to reach it: `..` globs, env_file, instruction files, symlinks). Modules are not
// imported (that runs user code; the invalid fixtures cover it) and nothing is compiled (a fuzzed
// toolset could start any command). Prints the figures; exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import fs, { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { defaultRegistry } from '../../cli/dist/default-registry.js';
import { loadProject } from '../dist/index.js';

const MAX_MESSAGE = 2048;

// Reads of the canary folder are counted by wrapping the fs entry points the loader uses; the ESM
// named imports of node:fs see the wrappers after syncBuiltinESMExports().
function watchReads(canary) {
  const hits = [];
  const wrap = (target, name) => {
    const original = target[name];
    target[name] = function (path, ...rest) {
      if (typeof path === 'string' || path instanceof URL) {
        const text = String(path instanceof URL ? fileURLToPath(path) : path);
        let real = text;
        try {
          real = fs.realpathSync.native(text);
        } catch {}
        if (resolve(text).startsWith(canary) || real.startsWith(canary)) hits.push(`${name} ${text}`);
      }
      return original.call(this, path, ...rest);
    };
    return () => {
      target[name] = original;
    };
  };
  const undo = [
    wrap(fs, 'readFileSync'),
    wrap(fs, 'openSync'),
    wrap(fs.promises, 'readFile'),
    wrap(fs.promises, 'open'),
  ];
  syncBuiltinESMExports();
  return {
    hits,
    restore() {
      for (const u of undo) u();
      syncBuiltinESMExports();
    },
  };
}

const hostileString = fc.oneof(
  fc.constantFrom(
    '../canary/secret.env',
    '../../canary/x.yaml',
    '/etc/passwd',
    '${AGENTCTL_FUZZ_UNSET:-}',
    '${AGENTCTL_FUZZ_UNSET:?needed}',
    '${AGENTCTL_FUZZ_UNSET}',
    'curent_time',
    'openia',
    'offline/echo',
    'offline/script',
    'gemini-2.5-flash',
    'app:key',
    '{{ state.user:name }}',
    '{{ nope }}',
    '../canary/*.yaml',
    '/**/*.yaml',
    './link.md',
    './fifo',
    '',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 3000, maxLength: 3000 }).map((s) => s.repeat(2)),
  fc.constant('*'.repeat(70_000)),
);
const scalar = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(
    fc.constantFrom('type', 'properties', 'name', 'x', 'max_attempts', 'path'),
    tie('value'),
    {
      maxKeys: 3,
    },
  ),
})).value;

const FIELDS = {
  project: ['include', 'exclude', 'env_file', 'defaults', 'name'],
  agent: [
    'model',
    'instruction',
    'instruction_file',
    'tools',
    'sub_agents',
    'middleware',
    'memory',
    'output_schema',
    'output_key',
    'type',
    'limits',
    'approval',
  ],
  model: [
    'provider',
    'model',
    'options',
    'script',
    'cassette',
    'reasoning',
    'parallel_tool_calls',
    'timeout',
    'retry',
    'base_url',
  ],
  tool: ['module', 'http', 'command', 'parameters', 'description'],
  toolset: ['mcp', 'include', 'exclude', 'prefix', 'approval'],
  middleware: ['builtin', 'module', 'options'],
  memory: ['backend', 'path', 'retention'],
};
const typed = {
  tools: fc.array(
    fc.oneof(
      hostileString,
      hostileString.map((b) => ({ builtin: b })),
      hostileString.map((m) => ({ module: m })),
      hostileString.map((t) => ({ toolset: t })),
      hostileString.map((a) => ({ agent: a })),
    ),
    { maxLength: 3 },
  ),
  include: fc.array(hostileString, { maxLength: 3 }),
  exclude: fc.array(hostileString, { maxLength: 2 }),
  mcp: fc.oneof(
    hostileString.map((url) => ({ url })),
    hostileString.map((command) => ({ command })),
  ),
  options: fc.dictionary(
    fc.constantFrom('organization', 'organisation', 'extra_body', 'thinkng', 'max_tokens_field'),
    value,
    { maxKeys: 2 },
  ),
  provider: fc.constantFrom('offline', 'openai', 'anthropic', 'openia'),
  middleware: fc.array(
    fc.oneof(
      hostileString,
      fc.record({
        retry: fc.dictionary(fc.constantFrom('max_attempts', 'max_attemps'), value, { maxKeys: 1 }),
      }),
    ),
    { maxLength: 2 },
  ),
};
const kindName = fc.constantFrom('agent', 'model', 'tool', 'toolset', 'middleware', 'memory');
const doc = kindName.chain((kind) =>
  fc
    .record({
      name: fc.oneof(fc.constantFrom('a', 'b', 'm', 'gemini-2.5-flash', 'app:x'), hostileString),
      fields: fc.subarray(FIELDS[kind], { maxLength: Math.min(5, FIELDS[kind].length) }),
      values: fc.array(value, { minLength: 5, maxLength: 5 }),
      typed: fc.record(Object.fromEntries(Object.entries(typed))),
    })
    .map(({ name, fields, values, typed: t }) => {
      const out = { kind, name };
      fields.forEach((f, i) => {
        out[f] = f in t ? t[f] : values[i];
      });
      return out;
    }),
);
const textMutation = fc.oneof(
  fc.record({ kind: fc.constant('alias-cycle') }),
  fc.record({ kind: fc.constant('complex-key') }),
  fc.record({ kind: fc.constant('flip'), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('cut'), at: fc.nat() }),
);
const caseArb = fc.record({
  project: fc.option(
    fc.record({
      kind: fc.constant('project'),
      include: typed.include,
      exclude: typed.exclude,
      env_file: fc.option(hostileString, { nil: undefined }),
    }),
    { nil: undefined },
  ),
  files: fc.array(fc.array(doc, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  mutations: fc.array(textMutation, { maxLength: 2 }),
  special: fc.subarray(['symlink-env', 'fifo-env', 'symlink-md', 'fifo-md', 'zero-env'], { maxLength: 2 }),
});

function mutate(text, m) {
  if (m.kind === 'alias-cycle')
    return `${text}\n---\nkind: agent\nname: cyc\noutput_schema: &s {type: object, properties: {me: *s}}\n`;
  if (m.kind === 'complex-key') return `${text}\n---\nkind: agent\nname: ck\n? [x, y]\n: 1\n`;
  const bytes = Buffer.from(text);
  if (bytes.length === 0) return text;
  if (m.kind === 'flip') {
    bytes[m.at % bytes.length] = m.byte;
    return bytes.toString('latin1');
  }
  return text.slice(0, m.at % text.length);
}

function write(base, c, n) {
  const root = join(base, `p${n}`);
  mkdirSync(join(root, 'agents'), { recursive: true });
  if (c.project) writeFileSync(join(root, 'agentctl.yaml'), stringify(c.project, { lineWidth: 0 }));
  c.files.forEach((docs, i) => {
    let text = docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n');
    for (const m of c.mutations) text = mutate(text, m);
    writeFileSync(join(root, 'agents', `f${i}.yaml`), text, 'latin1');
  });
  for (const s of c.special) {
    const target = s.endsWith('env') ? join(root, '.env') : join(root, 'agents/link.md');
    try {
      if (s.startsWith('symlink')) symlinkSync(join(base, 'canary/secret.env'), target);
      else if (s === 'zero-env') symlinkSync('/dev/zero', target);
      else execFileSync('mkfifo', [target], { stdio: 'ignore' });
    } catch {}
  }
  return root;
}

/** Runs `runs` cases; returns the figures and the failures (at most 20 kept). */
export async function fuzz({ runs = 10_000, seed = 1 } = {}) {
  const base = mkdtempSync(join(tmpdir(), 'agentctl-fuzz-'));
  const canary = join(base, 'canary');
  mkdirSync(canary);
  writeFileSync(join(canary, 'secret.env'), 'AGENTCTL_FUZZ_SECRET=leaked\n');
  writeFileSync(join(canary, 'x.yaml'), 'kind: agent\nname: intruder\n');
  const registry = defaultRegistry();
  const figures = {
    cases: 0,
    diagnostics: 0,
    uncaught: 0,
    internalErrors: 0,
    outsideReads: 0,
    longMessages: 0,
    longestMessage: 0,
    slowestMs: 0,
    validateMs: 0,
  };
  const failures = [];
  const reads = watchReads(fs.realpathSync(canary));
  const started = performance.now();
  try {
    const samples = fc.sample(caseArb, { numRuns: runs, seed });
    for (const [n, c] of samples.entries()) {
      const root = write(base, c, n);
      figures.cases++;
      const before = reads.hits.length;
      const t0 = performance.now();
      try {
        const loaded = await loadProject({ project: root, env: {}, registry });
        figures.diagnostics += loaded.diagnostics.length;
        for (const d of loaded.diagnostics) {
          figures.longestMessage = Math.max(figures.longestMessage, d.message.length);
          if (d.rule === 'internal-error') {
            figures.internalErrors++;
            failures.push({ n, what: 'internal-error', message: d.message });
          }
          if (Buffer.byteLength(d.message) > MAX_MESSAGE) {
            figures.longMessages++;
            failures.push({ n, what: 'long message', message: d.message.slice(0, 200) });
          }
        }
      } catch (error) {
        figures.uncaught++;
        failures.push({ n, what: 'uncaught', message: String(error?.stack ?? error).slice(0, 500) });
      }
      figures.slowestMs = Math.max(figures.slowestMs, performance.now() - t0);
      figures.validateMs += performance.now() - t0;
      if (reads.hits.length > before) {
        figures.outsideReads += reads.hits.length - before;
        failures.push({ n, what: 'read outside the project', message: reads.hits.slice(before).join('; ') });
      }
      rmSync(root, { recursive: true, force: true });
    }
  } finally {
    reads.restore();
    rmSync(base, { recursive: true, force: true });
  }
  figures.seconds = Number(((performance.now() - started) / 1000).toFixed(1));
  figures.slowestMs = Math.round(figures.slowestMs);
  figures.validateMs = Math.round(figures.validateMs);
  return { figures, failures: failures.slice(0, 20) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const { figures, failures } = await fuzz({
    runs: arg('--runs', 10_000),
    seed: arg('--seed', Date.now() % 100_000),
  });
  console.log(JSON.stringify(figures, null, 2));
  for (const f of failures) console.log(`case ${f.n}: ${f.what}: ${f.message}`);
  const failed = figures.uncaught + figures.internalErrors + figures.outsideReads + figures.longMessages;
  process.exitCode = failed > 0 ? 1 : 0;
}
