import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../src/index.js';
import { project } from './helpers.js';

const repo = join(import.meta.dirname, '../../..');

describe('hostile input', () => {
  it('refuses a file over 1 MiB without parsing it', async () => {
    const root = await project({
      'agents/big.yaml': `kind: agent\nname: a\ndescription: "${'x'.repeat(1024 * 1024)}"\n`,
    });
    const loaded = await loadProject({ project: root });
    expect(loaded.diagnostics.map((d) => [d.file, d.rule])).toEqual([['agents/big.yaml', 'file-too-large']]);
  });

  it('refuses nesting deeper than the limit, flow and block', async () => {
    const block = Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    const root = await project({
      'agents/flow.yaml': `a: ${'['.repeat(50_000)}`,
      'agents/block.yaml': `${block} x\n`,
    });
    const loaded = await loadProject({ project: root });
    expect(loaded.diagnostics.map((d) => [d.file, d.rule])).toEqual([
      ['agents/block.yaml', 'yaml-syntax'],
      ['agents/flow.yaml', 'yaml-syntax'],
    ]);
  });

  it('reads a file of 1 MiB in small documents once, not once per document', async () => {
    // The check for aliases and collection keys scanned the whole text for every document: a
    // half a minute here, against 3 s. The time limit only catches that; the figures live in benchmarks.
    const docs = Array.from({ length: 22_000 }, (_, i) => `kind: model\nname: m${i}\nprovider: offline\n`);
    const text = docs.join('---\n');
    expect(text.length).toBeLessThan(1024 * 1024);
    const root = await project({ 'agents/models.yaml': text });
    const loaded = await loadProject({ project: root });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.specs.model.size).toBe(22_000);
  }, 15_000);

  it('names an alias with no anchor where it is, and keeps the alias-bomb message for a bomb', async () => {
    const bomb = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 6; i++)
      bomb.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const root = await project({
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ndescription: *nope\n',
      'agents/b.yaml':
        'kind: agent\nname: b\nmodel: offline/echo\ndescription: *later\ninstruction: &later hi\n',
      'agents/c.yaml': `kind: agent\nname: c\n${bomb.join('\n')}\n`,
    });
    const loaded = await loadProject({ project: root });
    expect(loaded.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}: ${d.message}`)).toEqual([
      'agents/a.yaml:4:14: alias *nope names no anchor: write `&nope` on a node before it',
      'agents/b.yaml:4:14: alias *later names no anchor: write `&later` on a node before it',
      'agents/c.yaml:1:1: too many aliases expanded (more than 100); refusing a possible alias bomb',
    ]);
  });

  it('reports a symlink that leads out of the project', async () => {
    const { symlinkSync } = await import('node:fs');
    const outside = await project({ 'evil.ts': 'export {}' });
    const root = await project({ 'agents/a.yaml': 'kind: agent\nname: a\ntools:\n  - module: ./link.ts\n' });
    symlinkSync(join(outside, 'evil.ts'), join(root, 'agents/link.ts'));
    const loaded = await loadProject({ project: root });
    expect(loaded.diagnostics.map((d) => [d.rule, d.message])).toEqual([
      ['module-path', 'module `./link.ts` is outside the project folder'],
    ]);
  });

  it('validates only the given paths while resolving references across the project', async () => {
    const root = await project({
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: m\n',
      'agents/b.yaml': 'kind: model\nname: m\nprovider: offline\nmodel: echo\nbad: 1\n',
    });
    const loaded = await loadProject({ cwd: root, project: root, paths: ['agents/a.yaml'] });
    expect(loaded.diagnostics).toEqual([]);
    const all = await loadProject({ project: root });
    expect(all.diagnostics.map((d) => d.rule)).toEqual(['unknown-key']);
  });

  it('property: mutated example configs always give a result, never a throw, in bounded time', async () => {
    const sources = readdirSync(join(repo, 'agents'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => ({
        path: relative(repo, join(repo, 'agents', f)),
        text: readFileSync(join(repo, 'agents', f), 'utf8'),
      }));
    const root = await project(Object.fromEntries(sources.map((s) => [s.path, s.text])));
    const { writeFile } = await import('node:fs/promises');
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('rename' as const),
        at: fc.nat(),
        to: fc.constantFrom('modle', 'kind', 'name', '<<', '&a', '*a', '- ', '{', '"'),
      }),
    );
    const apply = (text: string, m: { kind: string; at: number; byte?: number; to?: string }): Buffer => {
      const lines = text.split('\n');
      const i = m.at % Math.max(1, lines.length);
      if (m.kind === 'flip') {
        const bytes = Buffer.from(text);
        bytes[m.at % bytes.length] = m.byte as number;
        return bytes;
      }
      if (m.kind === 'delete') lines.splice(i, 1);
      else if (m.kind === 'duplicate') lines.splice(i, 0, lines[i]);
      else lines[i] = lines[i].replace(/^(\s*-?\s*)[A-Za-z_]+/, `$1${m.to}`);
      return Buffer.from(lines.join('\n'));
    };
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (pick, mutations) => {
          const source = sources[pick % sources.length];
          const bytes = mutations.reduce<Buffer>(
            (text, m) => apply(text.toString('latin1'), m),
            Buffer.from(source.text),
          );
          await writeFile(join(root, source.path), bytes);
          try {
            const started = performance.now();
            const loaded = await loadProject({ project: root, env: {} });
            const elapsed = performance.now() - started;
            expect(Array.isArray(loaded.diagnostics)).toBe(true);
            for (const d of loaded.diagnostics) expect(d.line).toBeGreaterThanOrEqual(1);
            // A bound that only a hang breaks (the loader has no timer of its own to rely on).
            return elapsed < 10_000;
          } finally {
            await writeFile(join(root, source.path), source.text);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
