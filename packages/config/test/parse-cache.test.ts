import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultRegistry } from '../../cli/src/default-registry.js';
import { type LoadOptions, loadProject } from '../src/index.js';
import { PARSE_CACHE_FILE } from '../src/load/parse-cache.js';
import { project } from './helpers.js';

const fixtures = join(import.meta.dirname, 'fixtures/invalid');
const copies: string[] = [];
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function copyOf(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'agentctl-parse-cache-'));
  copies.push(copy);
  cpSync(dir, copy, { recursive: true });
  return copy;
}

const load = (root: string, options: LoadOptions = {}) =>
  loadProject({ project: root, env: {}, registry: defaultRegistry(), ...options });

/** What a load found, without the functions of its entries. */
async function outcome(root: string, options: LoadOptions = {}) {
  const loaded = await load(root, options);
  const specs = Object.fromEntries(
    Object.entries(loaded.specs).map(([kind, map]) => [
      kind,
      map instanceof Map
        ? [...map.values()].map((e) => [e.name, e.file, e.range, e.spec, e.locate(['name'])])
        : map && [map.name, map.spec],
    ]),
  );
  return { diagnostics: loaded.diagnostics, specs };
}

describe('parse cache', () => {
  it.each(readdirSync(fixtures).sort())(
    '%s: a load from the cache finds what a parse finds',
    async (name) => {
      const root = copyOf(join(fixtures, name));
      const parsed = await outcome(root, { checkModules: true });
      await outcome(root, { checkModules: true, cache: true }); // fills the cache
      expect(await outcome(root, { checkModules: true, cache: true })).toEqual(parsed);
    },
  );

  it('parses an edited file again and reports it at its new position', async () => {
    const root = await project({
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'agents/b.yaml': 'kind: agent\nname: b\nmodel: offline/echo\n',
    });
    expect((await load(root, { cache: true })).diagnostics).toEqual([]);
    writeFileSync(join(root, 'agents/b.yaml'), 'kind: agent\nname: b\n\nmodel: offline/echo\nmodle: x\n');
    const [problem] = (await load(root, { cache: true })).diagnostics;
    expect(problem).toMatchObject({ file: 'agents/b.yaml', line: 5, col: 1, rule: 'unknown-key' });
    // Only the files of this load stay cached.
    const stored = JSON.parse(readFileSync(join(root, PARSE_CACHE_FILE), 'utf8'));
    expect(Object.keys(stored.entries)).toHaveLength(2);
  });

  it('still checks what lies outside the YAML text: a module file removed since is an error', async () => {
    const root = await project({
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - module: ../tools/t.js\n',
      'tools/t.js': 'export const t = 1;\n',
    });
    expect((await load(root, { cache: true })).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    rmSync(join(root, 'tools/t.js'));
    const errors = (await load(root, { cache: true })).diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toMatchObject([{ file: 'agents/a.yaml', line: 5, rule: 'module-path' }]);
  });

  it('names each file by its own path when two hold the same text', async () => {
    const text = 'kind: agent\nname: twin\nmodle: x\n';
    const root = await project({ 'agents/one.yaml': text, 'agents/two.yaml': text });
    const first = (await load(root, { cache: true })).diagnostics.map((d) => `${d.file}:${d.line}:${d.rule}`);
    const again = (await load(root, { cache: true })).diagnostics.map((d) => `${d.file}:${d.line}:${d.rule}`);
    expect(again).toEqual(first);
    expect(again).toContain('agents/one.yaml:3:unknown-key');
    expect(again).toContain('agents/two.yaml:3:unknown-key');
  });

  it('keeps values JSON cannot hold by parsing their file each time', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\noutput_schema: { type: number, maximum: .inf }\n',
    });
    await load(root, { cache: true });
    const loaded = await load(root, { cache: true });
    const spec = loaded.specs.agent.get('a')?.spec as { output_schema: { maximum: number } };
    expect(spec.output_schema.maximum).toBe(Number.POSITIVE_INFINITY);
  });

  it('ignores a damaged cache file and writes a good one', async () => {
    const root = await project({ 'agents/a.yaml': 'kind: agent\nname: a\nmodle: x\n' });
    const expected = (await load(root)).diagnostics;
    await load(root, { cache: true });
    writeFileSync(join(root, PARSE_CACHE_FILE), '{"format":"agentctl-parse-1","entries":{');
    expect((await load(root, { cache: true })).diagnostics).toEqual(expected);
    expect(() => JSON.parse(readFileSync(join(root, PARSE_CACHE_FILE), 'utf8'))).not.toThrow();
    expect((await load(root, { cache: true })).diagnostics).toEqual(expected);
  });

  it("keeps what a plugin's options schema and an offline script's check found, until their text changes", async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: m\ntools:\n  - { builtin: shell, options: { allow: 5 } }\n---\nkind: model\nname: m\nprovider: offline\nmodel: script\nscript: ../scripts/turns.yaml\n',
      'scripts/turns.yaml': '- text: [unclosed\n',
    });
    // Each load as a new process makes it: modules fresh, so nothing is remembered in memory.
    const messages = async () => {
      vi.resetModules();
      const fresh = await import('../src/index.js');
      const { defaultRegistry: registry } = await import('../../cli/src/default-registry.js');
      const loaded = await fresh.loadProject({ project: root, env: {}, registry: registry(), cache: true });
      return loaded.diagnostics.map((d) => `${d.rule}: ${d.message}`).sort();
    };
    const cold = await messages();
    expect(cold).toEqual([
      expect.stringMatching(/^offline-file: script scripts\/turns\.yaml:\d+:\d+: not valid YAML/),
      expect.stringMatching(/^plugin-options: built-in shell: option `allow` must be a list, not 5$/),
    ]);
    // What a warm load reports comes from the cache: what is stored there is what it says.
    const file = join(root, PARSE_CACHE_FILE);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(stored.files)).toHaveLength(1);
    for (const key of Object.keys(stored.files)) stored.files[key] = 'kept script problem';
    for (const key of Object.keys(stored.options))
      stored.options[key] = [{ path: [], message: 'kept options problem' }];
    writeFileSync(file, JSON.stringify(stored));
    expect(await messages()).toEqual([
      'offline-file: kept script problem',
      'plugin-options: built-in shell: kept options problem',
    ]);
    // A script whose text changed is checked again.
    writeFileSync(join(root, 'scripts/turns.yaml'), '- text: fine\n');
    expect(await messages()).toEqual([expect.stringMatching(/^plugin-options: built-in shell: /)]);
  });

  it('writes nothing unless asked', async () => {
    const root = await project({ 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n' });
    await load(root);
    expect(existsSync(join(root, '.agentctl'))).toBe(false);
  });
});
