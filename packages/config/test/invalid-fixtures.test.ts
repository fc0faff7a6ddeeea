import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// The registry `agentctl validate` uses, so fixtures see the names and option shapes a user gets.
import { defaultRegistry } from '../../cli/src/default-registry.js';
import { KINDS, loadProject } from '../src/index.js';
import { RULES } from '../src/rules/index.js';

const base = join(import.meta.dirname, 'fixtures/invalid');
const cases = readdirSync(base).sort();

interface Expected {
  file: string;
  rule: string;
  severity: string;
  line: number;
  col: number;
}

describe('invalid fixtures', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', async (name) => {
    const dir = join(base, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected[];
    const loaded = await loadProject({
      project: dir,
      env: {},
      registry: defaultRegistry(),
      checkModules: true,
    });
    const actual = loaded.diagnostics.map((d) => ({
      file: d.file,
      rule: d.rule,
      severity: d.severity,
      line: d.line,
      col: d.col,
    }));
    expect(actual).toEqual(expected);
    expect(actual.length).toBeGreaterThan(0);
    for (const d of loaded.diagnostics) {
      expect(d.endLine * 10_000 + d.endCol).toBeGreaterThanOrEqual(d.line * 10_000 + d.col);
      expect(d.message).not.toMatch(/\n|^\s*$/);
      expect(Buffer.byteLength(d.message)).toBeLessThanOrEqual(2048);
    }
  });

  it('covers every rule and every kind', () => {
    const rules = new Set<string>();
    const kinds = new Set<string>();
    for (const name of cases) {
      for (const d of JSON.parse(readFileSync(join(base, name, 'expected.json'), 'utf8')) as Expected[])
        rules.add(d.rule);
      for (const file of readdirSync(join(base, name), { recursive: true }) as string[]) {
        if (!file.endsWith('.yaml')) continue;
        const text = readFileSync(join(base, name, file), 'utf8');
        for (const match of text.matchAll(/^kind: (\w+)/gm)) kinds.add(match[1]);
      }
    }
    for (const rule of RULES) expect(rules).toContain(rule.id);
    for (const rule of [
      'yaml-syntax',
      'unknown-kind',
      'unknown-key',
      'schema',
      'project-file',
      'empty-file',
      'env-file',
      'encoding',
    ])
      expect(rules).toContain(rule);
    // Every kind has a broken fixture: a new kind without one fails here.
    for (const kind of KINDS) expect(kinds).toContain(kind);
  });
});
