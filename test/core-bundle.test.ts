import { describe, expect, it } from 'vitest';
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
