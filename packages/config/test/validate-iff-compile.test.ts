import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// The registry `agentctl validate` and `run` use.
import { defaultRegistry } from '../../cli/src/default-registry.js';
import { compileProject, type LoadedProject, loadProject } from '../src/index.js';

const repo = join(import.meta.dirname, '../../..');
const fixtures = join(import.meta.dirname, 'fixtures/invalid');

// Network-free: no fixture or example here has a toolset, so compiling starts no server, and
// network providers look their key up at the first request only.
async function verdicts(root: string): Promise<{ validateOk: boolean; compileOk: boolean; why: string }> {
  const env = {};
  const registry = defaultRegistry();
  const loaded: LoadedProject = await loadProject({ project: root, env, registry, checkModules: true });
  const validateOk = !loaded.diagnostics.some((d) => d.severity === 'error');
  // `run` is load + compile: with load errors it refuses already, so compile is only asked when load passed.
  if (!validateOk) return { validateOk, compileOk: false, why: loaded.diagnostics[0].message };
  const compiled = await compileProject(loaded, { env, registry });
  // The one documented difference: `${VAR:?msg}` is a warning at validate (CI has no secrets)
  // and an error at compile when VAR is unset.
  const errors = compiled.diagnostics.filter((d) => d.severity === 'error' && d.rule !== 'env-required');
  await compiled.runtime?.dispose();
  return {
    validateOk,
    compileOk: errors.length === 0 && compiled.runtime !== undefined,
    why: errors[0]?.message ?? '',
  };
}

describe('validate exits 0 if and only if compiling succeeds', () => {
  it.each(readdirSync(fixtures).sort())('fixture %s', async (name) => {
    const v = await verdicts(join(fixtures, name));
    expect(v.compileOk, v.why).toBe(v.validateOk);
  });

  it('over the examples, mutated (documents and lines dropped): validate passes exactly when compile does', async () => {
    const all = readdirSync(join(repo, 'agents'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.yaml') && !f.includes('scripts/') && !f.includes('cassettes/'));
    const files = all.filter((f) => !readFileSync(join(repo, 'agents', f), 'utf8').includes('kind: toolset'));
    const base = mkdtempSync(join(tmpdir(), 'agentctl-iff-'));
    try {
      cpSync(join(repo, 'agents'), join(base, 'agents'), { recursive: true });
      cpSync(join(repo, 'agentctl.yaml'), join(base, 'agentctl.yaml'));
      // An example with an MCP toolset would start its server at compile: left out (network-free).
      for (const file of all.filter((f) => !files.includes(f))) rmSync(join(base, 'agents', file));
      const clean = await verdicts(base);
      expect(clean).toMatchObject({ validateOk: true, compileOk: true });
      let validCases = 0;
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.nat(), fc.boolean(), async (pick, at, wholeDocument) => {
          const file = join(base, 'agents', files[pick % files.length]);
          const original = readFileSync(file, 'utf8');
          const parts = wholeDocument ? original.split(/^---$/m) : original.split('\n');
          parts.splice(at % parts.length, 1);
          writeFileSync(file, parts.join(wholeDocument ? '---' : '\n'));
          try {
            const v = await verdicts(base);
            if (v.validateOk) validCases++;
            if (v.validateOk !== v.compileOk)
              throw new Error(`validate ${v.validateOk}, compile ${v.compileOk}: ${v.why}`);
          } finally {
            writeFileSync(file, original);
          }
        }),
        { numRuns: 12, seed: 14 },
      );
      expect(validCases).toBeGreaterThan(2);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 400_000);
});
