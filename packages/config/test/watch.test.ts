import { existsSync } from 'node:fs';
import { mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InMemorySessionStore, type LlmAgent, Runner } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Diagnostic,
  formatAgentChanges,
  formatDiagnostic,
  type Generation,
  type ProjectWatch,
  type WatchOptions,
  watchProject,
} from '../src/index.js';
import { project } from './helpers.js';

/** An echo agent whose structured answer is `{ v: <value> }`: a change to it is observable. */
const agentYaml = (name: string, value: string) =>
  `kind: agent\nname: ${name}\nmodel: offline/echo\ninstruction: answer\noutput_schema: { type: object, properties: { v: { const: ${value} } }, required: [v] }\n`;

/** A module tool `t` answering `value`. */
const moduleTool = (value: string) =>
  `export default { name: 't', description: 't', parameters: { type: 'object', properties: {} }, execute: () => '${value}' };\n`;

/** A module that writes `marker` as it starts loading, then never finishes (`hang`: its last line). */
const stuckModule = (marker: string, hang = 'while (true) {}') =>
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '');\n${hang}\n`;

/** A project whose agent `a` has the module tool tools/t.js, and the marker path a stuck version writes. */
async function moduleProject(): Promise<{ root: string; marker: string }> {
  const root = await project({
    'agents/a.yaml': `${agentYaml('a', 'kept')}tools: [{ module: ../tools/t.js }]\n`,
    'tools/t.js': moduleTool('v1'),
  });
  return { root, marker: join(root, 'importing') };
}

async function untilExists(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 20));
}

interface Watched {
  watch: ProjectWatch;
  generations: Generation[];
  failures: Diagnostic[][];
  /** Resolves with the next generation (or the next failure) after this call. */
  next(): Promise<{ generation?: Generation; diagnostics?: Diagnostic[] }>;
}

const open: ProjectWatch[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close()));
});

async function watched(root: string, debounceMs = 30, options: WatchOptions = {}): Promise<Watched> {
  const generations: Generation[] = [];
  const failures: Diagnostic[][] = [];
  let waiters: Array<(r: { generation?: Generation; diagnostics?: Diagnostic[] }) => void> = [];
  const settle = (r: { generation?: Generation; diagnostics?: Diagnostic[] }) => {
    const now = waiters;
    waiters = [];
    for (const w of now) w(r);
  };
  const watch = await watchProject(
    root,
    (generation) => {
      generations.push(generation);
      settle({ generation });
    },
    (diagnostics) => {
      failures.push(diagnostics);
      settle({ diagnostics });
    },
    { project: root, debounceMs, ...options },
  );
  open.push(watch);
  return {
    watch,
    generations,
    failures,
    next: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

/** Waits (through reload events) until `check` holds; the test's timeout fails it otherwise. */
async function until(w: Watched, check: () => boolean | Promise<boolean>): Promise<void> {
  while (true) {
    const next = w.next();
    if (await check()) return;
    await next;
  }
}

/** A lease on the live generation; fails with the diagnostics when there is none. */
function lease(w: Watched) {
  const got = w.watch.acquire();
  if (!got) throw new Error(`no live generation: ${w.failures.flat().map(formatDiagnostic).join('\n')}`);
  return got;
}

async function answer(w: Watched, agent = 'a'): Promise<unknown> {
  const held = lease(w);
  try {
    // A reload that read a file half written may lack the agent for a moment.
    const found = held.generation.runtime.agents.get(agent) as LlmAgent | undefined;
    if (!found) return undefined;
    const run = found.run<{ v: unknown }>('hi');
    return (await run).output.v;
  } finally {
    held.release();
  }
}

describe('watchProject', () => {
  it('builds the first generation and reloads on an in-place save', async () => {
    const root = await project({ 'agents/a.yaml': agentYaml('a', 'one') });
    const w = await watched(root);
    expect(w.generations.map((g) => g.id)).toEqual([1]);
    expect(formatAgentChanges(w.generations[0].changes)).toBe('1 added: +a');
    expect(await answer(w)).toBe('one');
    await writeFile(join(root, 'agents/a.yaml'), agentYaml('a', 'two'));
    await until(w, () => w.watch.current?.id === 2);
    expect(formatAgentChanges(w.generations[1].changes)).toBe('1 changed: ~a');
    expect(w.generations[1].files).toEqual([join(root, 'agents/a.yaml')]);
    expect(await answer(w)).toBe('two');
  });

  it('sees every editor save style', async () => {
    const root = await project({ 'agents/a.yaml': agentYaml('a', 'zero') });
    const w = await watched(root);
    const file = join(root, 'agents/a.yaml');
    const styles: Record<string, (content: string) => Promise<void>> = {
      'temp then rename': async (content) => {
        await writeFile(`${file}.tmp-123`, content);
        await rename(`${file}.tmp-123`, file);
      },
      'rename to backup (vim)': async (content) => {
        await writeFile(join(root, 'agents/4913'), '');
        await unlink(join(root, 'agents/4913'));
        await rename(file, `${file}~`);
        await writeFile(file, content);
        await unlink(`${file}~`);
      },
      'delete and recreate': async (content) => {
        await unlink(file);
        await writeFile(file, content);
      },
      'in place': (content) => writeFile(file, content),
    };
    for (const [style, save] of Object.entries(styles)) {
      const value = style.replace(/\W+/g, '_');
      await save(agentYaml('a', value));
      await until(w, async () => (await answer(w)) === value);
    }
    // A save style that briefly leaves no file may report it missing, never a broken YAML.
    expect(w.failures.flat().filter((d) => d.rule !== 'project-file')).toEqual([]);
  });

  it('keeps the last good generation on a broken save, reports file:line:col once, and recovers', async () => {
    const root = await project({ 'agents/a.yaml': agentYaml('a', 'good') });
    const w = await watched(root);
    await writeFile(join(root, 'agents/a.yaml'), `${agentYaml('a', 'bad')}limits: { max_iterations: [ }\n`);
    await until(w, () => w.failures.length > 0);
    expect(w.failures[0].map(formatDiagnostic).join('\n')).toMatch(/agents\/a\.yaml:6:\d+: error/);
    expect(w.watch.current?.id).toBe(1);
    expect(await answer(w)).toBe('good');
    // Saving the same broken text again (or a late duplicate event) is not a new change.
    await writeFile(join(root, 'agents/a.yaml'), `${agentYaml('a', 'bad')}limits: { max_iterations: [ }\n`);
    await writeFile(join(root, 'agents/a.yaml'), agentYaml('a', 'fixed'));
    await until(w, () => w.watch.current?.id === 2);
    expect(await answer(w)).toBe('fixed');
    expect(w.failures).toHaveLength(1);
  });

  it('keeps the old generation when the new one fails to compile (a module tool that is missing)', async () => {
    const root = await project({
      'agents/a.yaml': agentYaml('a', 'kept'),
      'tools/t.js': 'export default { name: "t", description: "t", execute: () => 1 };\n',
    });
    const w = await watched(root);
    await writeFile(
      join(root, 'agents/a.yaml'),
      `${agentYaml('a', 'new')}tools: [{ module: ../tools/missing.js }]\n`,
    );
    await until(w, () => w.failures.length > 0);
    expect(w.failures[0].map(formatDiagnostic).join('\n')).toMatch(
      /agents\/a\.yaml:6:\d+: error.*missing\.js/,
    );
    expect(w.watch.current?.id).toBe(1);
    expect(await answer(w)).toBe('kept');
  });

  it('picks up new files and drops deleted ones', async () => {
    const root = await project({ 'agents/a.yaml': agentYaml('a', 'x') });
    const w = await watched(root);
    await writeFile(join(root, 'agents/b.yaml'), agentYaml('b', 'bee'));
    await until(w, () => w.watch.current?.id === 2);
    expect(formatAgentChanges(w.generations[1].changes)).toBe('1 added: +b');
    expect(await answer(w, 'b')).toBe('bee');
    await rm(join(root, 'agents/a.yaml'));
    await until(w, () => w.watch.current?.id === 3);
    expect(formatAgentChanges(w.generations[2].changes)).toBe('1 removed: -a');
    expect(w.watch.current?.runtime.agents.has('a')).toBe(false);
  });

  it('ignores files outside the include globs', async () => {
    const root = await project({
      'agentctl.yaml': 'kind: project\nname: p\ninclude: ["agents/**/*.yaml"]\n',
      'agents/a.yaml': agentYaml('a', 'x'),
    });
    const w = await watched(root);
    await writeFile(join(root, 'notes.yaml'), 'not: part of it\n');
    await writeFile(join(root, 'agents/README.txt'), 'hello\n');
    // A reload that is not skipped would land before this forced one.
    await w.watch.reload();
    expect(w.generations.map((g) => g.files)).toEqual([[], []]);
  });

  it('lets a run in flight finish on its generation, then disposes it', async () => {
    const gate = join(await project({}), 'gate');
    const toolSource = (version: string, wait: boolean) => `
import { existsSync } from 'node:fs';
export default {
  name: 'slow', description: 'waits for the gate', parameters: { type: 'object', properties: {} },
  async execute() {
    ${wait ? `while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 10));` : ''}
    return '${version}';
  },
};
`;
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/slow.ts }]\n',
      'tools/slow.ts': toolSource('v1', true),
    });
    const w = await watched(root);
    const held = lease(w);
    const oldRun = (held.generation.runtime.agents.get('a') as LlmAgent).run('go');
    const oldDone = Promise.resolve(oldRun).finally(held.release);
    await writeFile(join(root, 'tools/slow.ts'), toolSource('v2', false));
    await until(w, () => w.watch.current?.id === 2);
    const second = w.generations[1];
    expect(formatAgentChanges(second.changes)).toBe('1 changed: ~a');
    const first = w.generations[0];
    expect(first.retired && !first.disposed).toBe(true);
    const newLease = lease(w);
    const newResult = await (newLease.generation.runtime.agents.get('a') as LlmAgent).run('go');
    newLease.release();
    expect(newResult.toolCalls.map((c) => c.result)).toEqual(['v2']);
    expect(first.disposed).toBe(false);
    await writeFile(gate, '');
    const oldResult = await oldDone;
    expect(oldResult.toolCalls.map((c) => c.result)).toEqual(['v1']);
    expect(first.disposed).toBe(true);
    expect(second.disposed).toBe(false);
    expect(existsSync(gate)).toBe(true);
  });

  it('lets a module tool in the worker read and write session state', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/who.ts }]\n',
      'tools/who.ts': `export default {
  name: 'who', description: 'reads state', parameters: { type: 'object', properties: {} },
  execute: (_args: unknown, ctx: any) => {
    ctx.state.set('seen', true);
    return { customer: ctx.state.get('customer'), seen: ctx.state.get('seen'), missing: ctx.state.get('nope') ?? null };
  },
};
`,
    });
    const w = await watched(root);
    const held = lease(w);
    const result = await (held.generation.runtime.agents.get('a') as LlmAgent).run('go', {
      state: { customer: { name: 'Ada' } },
    });
    held.release();
    expect(result.toolCalls[0].result).toEqual({ customer: { name: 'Ada' }, seen: true, missing: null });
  });

  it("gives a module tool in the worker state.update that loses no run's update of a shared key", async () => {
    // Both calls update before either ends: read then written back as each call's result, the
    // second would store the count the first already stored.
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/count.ts }]\n',
      'tools/count.ts': `let arrived = 0;
let release: () => void;
const both = new Promise<void>((resolve) => { release = resolve; });
export default {
  name: 'count', description: 'counts', parameters: { type: 'object', properties: {} },
  execute: async (_args: unknown, ctx: any) => {
    ctx.state.set('local', 5);
    const local = await ctx.state.update('local', (n: number) => n + 1);
    const count = await ctx.state.update('user:count', (n: number | undefined) => (n ?? 0) + 1);
    if (++arrived === 2) release();
    await both;
    return { local, seen: ctx.state.get('local'), count };
  },
};
`,
    });
    const w = await watched(root);
    const held = lease(w);
    const agent = held.generation.runtime.agents.get('a') as LlmAgent;
    const store = new InMemorySessionStore();
    const runs = await Promise.all(
      ['s1', 's2'].map(
        (sessionId) => new Runner({ agent, store }).run({ input: 'go', sessionId, userId: 'ada' }).invocation,
      ),
    );
    held.release();
    expect((await store.getScopedState('user:ada'))['user:count']).toBe(2);
    expect(runs.map((r) => (r.toolCalls[0].result as { count: number }).count).sort()).toEqual([1, 2]);
    for (const run of runs) {
      expect(run.toolCalls[0].result).toMatchObject({ local: 6, seen: 6 });
      expect(run.state.local).toBe(6);
    }
  });

  it('runs module middleware in the worker, calling back into the chain', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ninstruction: hi\nmiddleware: [shout]\n---\nkind: middleware\nname: shout\nmodule: ../mw/shout.ts\noptions: { suffix: "!" }\n',
      'mw/shout.ts': `export default (options: { suffix: string }) => async (action: any, next: any) => {
  const out = await next();
  if (out.type === 'model_response') out.payload.response.content = String(out.payload.response.content).toUpperCase() + options.suffix;
  return out;
};
`,
    });
    const w = await watched(root);
    const held = lease(w);
    const result = await (held.generation.runtime.agents.get('a') as LlmAgent).run('quiet please');
    held.release();
    expect(result.text).toBe('QUIET PLEASE!');
  });

  it('reloads when a file a module imports changes, in any folder and outside the project', async () => {
    const outside = await project({ 'shared.js': "export const O = 'o1';\n" });
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/t.js }, { module: ../tools/u.ts }]\n',
      // An ES module importing a helper from another folder of the project and one from outside it.
      'tools/t.js': `import { V } from '../lib/v.js';\nimport { O } from ${JSON.stringify(join(outside, 'shared.js'))};\nexport default { name: 't', description: 't', parameters: { type: 'object', properties: {} }, execute: () => V + O };\n`,
      'lib/v.js': "export const V = 'v1';\n",
      // A .ts file outside a "type": "module" package is compiled to CommonJS: its imports are require()s.
      'tools/u.ts': `import { W } from '../lib/w';\nexport default { name: 'u', description: 'u', parameters: { type: 'object', properties: {} }, execute: () => W };\n`,
      'lib/w.ts': "export const W: string = 'w1';\n",
    });
    const w = await watched(root);
    const results = async () => {
      const held = lease(w);
      try {
        const run = await (held.generation.runtime.agents.get('a') as LlmAgent).run('go');
        return run.toolCalls.map((call) => call.result).join(' ');
      } finally {
        held.release();
      }
    };
    expect(await results()).toBe('v1o1 w1');
    await writeFile(join(root, 'lib/v.js'), "export const V = 'v2';\n");
    await until(w, () => w.watch.current?.id === 2);
    expect(formatAgentChanges(w.generations[1].changes)).toBe('1 changed: ~a');
    expect(await results()).toBe('v2o1 w1');
    await writeFile(join(outside, 'shared.js'), "export const O = 'o2';\n");
    await until(w, () => w.watch.current?.id === 3);
    await writeFile(join(root, 'lib/w.ts'), "export const W: string = 'w2';\n");
    await until(w, () => w.watch.current?.id === 4);
    expect(await results()).toBe('v2o2 w2');
    // A helper broken by a save fails the reload, saying where; the save that fixes it is seen too.
    await writeFile(join(root, 'lib/v.js'), 'export const A = 1;\nexport const V = ;\n');
    await until(w, () => w.failures.length === 1);
    expect(w.failures[0].map(formatDiagnostic).join('\n')).toMatch(
      /^agents\/a\.yaml:5:\d+: error: .*lib\/v\.js:2:18: Unexpected token ';'/,
    );
    await writeFile(
      join(root, 'lib/v.js'),
      "const fail = () => { throw new Error('no V today'); };\nfail();\nexport const V = 'never';\n",
    );
    await until(w, () => w.failures.length === 2);
    expect(w.failures[1].map(formatDiagnostic).join('\n')).toMatch(/lib\/v\.js:1:28: no V today/);
    await writeFile(join(root, 'lib/w.ts'), 'export const W: string = ;\n');
    await until(w, () => w.failures.length === 3);
    expect(w.failures[2].map(formatDiagnostic).join('\n')).toMatch(/lib\/w\.ts:1:26: Unexpected ";"/);
    await writeFile(join(root, 'lib/w.ts'), "export const W: string = 'w2';\n");
    await writeFile(join(root, 'lib/v.js'), "export const V = 'v3';\n");
    await until(w, () => w.watch.current?.id === 5);
    expect(await results()).toBe('v3o2 w2');
  }, 30_000);

  it('keeps the sessions of an in-process memory across reloads while its document is unchanged', async () => {
    const memory = (extra = '') => `kind: memory\nname: mem\nbackend: memory\n${extra}---\n`;
    const root = await project({ 'agents/a.yaml': `${memory()}${agentYaml('a', 'x')}memory: mem\n` });
    const w = await watched(root);
    const memoryOf = () => (lease(w).generation.runtime.agents.get('a') as LlmAgent).getConfig().memory;
    const run = async (sessionId: string) => {
      const held = lease(w);
      try {
        const agent = held.generation.runtime.agents.get('a') as LlmAgent;
        const store = agent.getConfig().memory as InMemorySessionStore;
        await new Runner({ agent, store }).run({ input: 'hi', sessionId }).result;
      } finally {
        held.release();
      }
    };
    await run('s1');
    const first = memoryOf() as InMemorySessionStore;
    expect(await first.get('s1')).toBeDefined();
    await writeFile(join(root, 'agents/a.yaml'), `${memory()}${agentYaml('a', 'y')}memory: mem\n`);
    await until(w, () => w.watch.current?.id === 2);
    const second = memoryOf() as InMemorySessionStore;
    expect(second).toBe(first);
    expect(await second.get('s1')).toBeDefined();
    // A changed memory document is a new store.
    await writeFile(
      join(root, 'agents/a.yaml'),
      `${memory('retention: { max_sessions: 5 }\n')}${agentYaml('a', 'y')}memory: mem\n`,
    );
    await until(w, () => w.watch.current?.id === 3);
    expect(memoryOf()).not.toBe(first);
  });

  it('fails a reload on a module that never finishes loading, naming it, and recovers when it is fixed', async () => {
    const { root } = await moduleProject();
    const w = await watched(root, 30, { moduleLoadLimitMs: 5_000 });
    await writeFile(join(root, 'tools/t.js'), `while (true) {}\n${moduleTool('never')}`);
    await until(w, () => w.failures.length > 0);
    expect(w.failures[0].map(formatDiagnostic).join('\n')).toMatch(
      /agents\/a\.yaml:6:\d+: error: tools\/t\.js did not finish loading within 5 s/,
    );
    expect(w.watch.current?.id).toBe(1);
    expect(await answer(w)).toBe('kept');
    await writeFile(join(root, 'tools/t.js'), moduleTool('v2'));
    await until(w, () => w.watch.current?.id === 2);
  }, 60_000);

  it('drops a reload stuck in a module import when a newer save arrives', async () => {
    const { root, marker } = await moduleProject();
    // No load limit in sight: only the newer save can end the wait.
    const w = await watched(root, 30, { moduleLoadLimitMs: 600_000 });
    await writeFile(join(root, 'tools/t.js'), stuckModule(marker, 'await new Promise(() => {});'));
    await untilExists(marker);
    await writeFile(join(root, 'tools/t.js'), moduleTool('v2'));
    await until(w, () => w.watch.current?.id === 2);
    // The dropped build is not reported: the save after it is what the user sees.
    expect(w.failures).toEqual([]);
  }, 60_000);

  it('still fails a stuck module when the same text is saved again while it loads', async () => {
    const { root, marker } = await moduleProject();
    const w = await watched(root, 30, { moduleLoadLimitMs: 5_000 });
    await writeFile(join(root, 'tools/t.js'), stuckModule(marker));
    await untilExists(marker);
    // The dropped reload read this very text: the one after it must not take it as already built.
    await writeFile(join(root, 'tools/t.js'), stuckModule(marker));
    await until(w, () => w.failures.length > 0);
    expect(w.failures[0].map(formatDiagnostic).join('\n')).toMatch(
      /tools\/t\.js did not finish loading within 5 s/,
    );
    expect(w.watch.current?.id).toBe(1);
  }, 60_000);

  it('closes at once while a reload waits on a module that never finishes loading', async () => {
    const { root, marker } = await moduleProject();
    const w = await watched(root, 30, { moduleLoadLimitMs: 600_000 });
    await writeFile(join(root, 'tools/t.js'), stuckModule(marker));
    await untilExists(marker);
    await w.watch.close();
    expect(w.watch.current?.disposed).toBe(true);
    expect(w.failures).toEqual([]);
  }, 60_000);

  it('reloads an agent whose file is a symlink when the file behind it changes', async () => {
    const root = await project({ 'library/a.yaml': agentYaml('a', '1') });
    await mkdir(join(root, 'agents'));
    await symlink('../library/a.yaml', join(root, 'agents/a.yaml'));
    const w = await watched(root);
    expect(await answer(w)).toBe(1);
    await writeFile(join(root, 'library/a.yaml'), agentYaml('a', '2'));
    await until(w, () => w.watch.current?.id === 2);
    expect(await answer(w)).toBe(2);
    // Saved as editors save, a new file renamed over the old: the link's own watch followed the old
    // file; the real path is watched too.
    await writeFile(join(root, 'library/a.yaml.tmp'), agentYaml('a', '3'));
    await rename(join(root, 'library/a.yaml.tmp'), join(root, 'library/a.yaml'));
    await until(w, () => w.watch.current?.id === 3);
    expect(await answer(w)).toBe(3);
    expect(w.failures).toEqual([]);
  });

  it('does not reload for a symlink or a folder where no project file can be', async () => {
    const root = await project({
      'agents/a.yaml': agentYaml('a', '1'),
      'fixtures/notes.md': 'notes\n',
      'dist/out.js': '// built\n',
    });
    // A link that exists from the start (a test fixture beside the sources) and one made now.
    await symlink('../fixtures/notes.md', join(root, 'fixtures/linked.md'));
    const w = await watched(root);
    await symlink('notes.md', join(root, 'fixtures/made.md'));
    await rm(join(root, 'dist'), { recursive: true });
    await writeFile(join(root, 'agents/a.yaml'), agentYaml('a', '2'));
    await until(w, () => w.watch.current?.id === 2);
    // Any of them counted would have reloaded alone, or been named beside the agent's file.
    expect(w.generations.map((g) => g.files)).toEqual([[], [join(root, 'agents/a.yaml')]]);
  });

  it('reloads when a symlink to a folder of agents is made or removed while it watches', async () => {
    const root = await project({
      'agents/a.yaml': agentYaml('a', '1'),
      'library/b.yaml': agentYaml('b', '2'),
    });
    const w = await watched(root);
    await symlink('../library', join(root, 'agents/shared'));
    await until(w, () => w.watch.current?.id === 2);
    expect(formatAgentChanges(w.generations[1].changes)).toBe('1 added: +b');
    expect(await answer(w, 'b')).toBe(2);
    await rm(join(root, 'agents/shared'));
    await until(w, () => w.watch.current?.id === 3);
    expect(formatAgentChanges(w.generations[2].changes)).toBe('1 removed: -b');
    expect(w.failures).toEqual([]);
  });

  it('watches a folder with symlink loops, and a module tool behind a symlink at its real path', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/t.js }]\n',
      'lib/t.js': moduleTool('v1'),
    });
    await symlink('lib', join(root, 'tools'));
    // A link to itself, and a folder linked back to the project: unreadable, or endless if followed.
    await symlink('self', join(root, 'self'));
    await symlink('..', join(root, 'agents/loop'));
    const errors: Error[] = [];
    const w = await watched(root, 30, { onWatchError: (error) => errors.push(error) });
    const result = async () => {
      const held = lease(w);
      try {
        return (await (held.generation.runtime.agents.get('a') as LlmAgent).run('go')).toolCalls.map(
          (c) => c.result,
        );
      } finally {
        held.release();
      }
    };
    expect(await result()).toEqual(['v1']);
    await writeFile(join(root, 'lib/t.js'), moduleTool('v2'));
    await until(w, () => w.watch.current?.id === 2);
    expect(await result()).toEqual(['v2']);
    expect(errors).toEqual([]);
  });
});
