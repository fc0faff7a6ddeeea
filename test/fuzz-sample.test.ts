import { describe, expect, it } from 'vitest';
// The fuzzer of `pnpm fuzz`, on a bounded sample with a fixed seed (it runs the built loader).
import { fuzz } from '../packages/config/scripts/fuzz.js';

describe('fuzzed projects (a CI sample of `pnpm fuzz`)', () => {
  it('give diagnostics only: no throw, no internal-error, no read outside the project, no message over 2 KB', async () => {
    const { figures, failures } = await fuzz({ runs: 120, seed: 20_261_123 });
    expect(failures).toEqual([]);
    expect(figures).toMatchObject({
      cases: 120,
      uncaught: 0,
      internalErrors: 0,
      outsideReads: 0,
      longMessages: 0,
    });
    expect(figures.diagnostics).toBeGreaterThan(120);
  }, 300_000);
});
