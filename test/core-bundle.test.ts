import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renamedClasses } from '../packages/core/scripts/node-bundle.js';
import { REPO } from './support/cli.js';
import { behaviour, ENTRY_CHECK, entryCheck } from './support/entry-check.js';

// The bundle the build makes (packages/core/scripts/bundle.js, what publishConfig.exports point at),
// loaded in the monorepo through the `agentctl-bundle` condition, beside the build's modules. Build first.
describe("core's bundle in the monorepo", () => {
  it('exports what dist/index.js exports and runs agents alike, with one copy of every class', async () => {
    const [built, bundled] = await Promise.all([
      entryCheck(ENTRY_CHECK),
      entryCheck(ENTRY_CHECK, ['--conditions=agentctl-bundle', '--enable-source-maps']),
    ]);
    expect(built.main).toMatch(/\/packages\/core\/dist\/index\.js$/);
    expect(bundled.main).toMatch(/\/packages\/core\/dist\/bundle\/index\.js$/);
    expect(bundled.testing).toMatch(/\/packages\/core\/dist\/bundle\/testing\.js$/);
    expect(bundled.names.length).toBeGreaterThan(100);
    // Names, classes' and functions' own names (errors name themselves after their class), runs.
    expect(behaviour(bundled)).toEqual(behaviour(built));
    expect(bundled.echo).toBe('hello from the bundle');
    expect(bundled.toolResults.map((r) => r.isError)).toEqual([true, false]);
    expect(bundled.toolResults[0].content).toContain('must match format "email"');
    expect(bundled.output).toBe('sent');
    // ajv is still imported on the first check that needs it, not with core.
    expect([bundled.ajvBeforeRun, bundled.ajvAfterRun]).toEqual([false, true]);
    expect(bundled.shared).toMatchObject({ scriptModel: true, agentError: true, errorName: 'AgentError' });
    // The source maps lead from the bundle to the TypeScript source.
    expect(bundled.shared.stack).toMatch(/packages\/core\/src\/offline\/script-model\.ts:\d+:\d+/);
  });
});

describe("core's bundle and the names of its classes", () => {
  it('is made without keepNames, whose Object.defineProperty per function made cost the Runner 15-20 % a step', () => {
    const dir = join(REPO, 'packages/core/dist/bundle');
    const code = readdirSync(dir)
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    expect(code).toContain('var AgentError = class extends Error');
    expect(code).not.toMatch(/__name\(/);
    // Classes that named themselves in their body were bundled with an inner name, their `name`.
    expect(code).not.toMatch(/= class _/);
  });

  it('finds a class the bundler renamed, by a clash or by an inner name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentctl-renamed-'));
    try {
      const file = (name: string, text: string) => {
        writeFileSync(join(dir, name), text);
        return join(dir, name);
      };
      const inputs = [
        file('a.js', 'export class Wait {}\nexport class Run { again() { return new Run(); } }'),
        file(
          'b.js',
          '// a class that waits\nexport class Wait extends Error {}\nexport const Plain = class {};',
        ),
      ];
      const fine = file('fine.js', 'var Wait = class {};\nvar Plain = class {};\nclass Run {}');
      const clash = file('clash.js', 'var Wait = class {};\nvar Wait2 = class extends Error {};');
      const inner = file('inner.js', 'var Run = class _Run { again() { return new _Run(); } };');
      expect(renamedClasses([fine], inputs)).toEqual([]);
      expect(renamedClasses([clash], inputs)).toEqual(['Wait2']);
      expect(renamedClasses([inner], inputs)).toEqual(['_Run']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
