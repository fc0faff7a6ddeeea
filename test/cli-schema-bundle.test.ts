import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const CLI = new URL('../packages/cli/bin/agentctl.js', import.meta.url).pathname;
const requireFromConfig = createRequire(new URL('../packages/config/package.json', import.meta.url));
const { Ajv2020 } = requireFromConfig('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');

async function schema(kind?: string): Promise<object> {
  const { stdout } = await exec('node', [CLI, 'schema', ...(kind ? [kind] : [])]);
  return JSON.parse(stdout) as object;
}

describe('agentctl schema', () => {
  it('prints self-contained schemas that validate on their own, with no sibling files', async () => {
    for (const kind of [undefined, 'agent', 'model', 'tool']) {
      const ajv = new Ajv2020({ strict: false });
      const validate = ajv.compile(await schema(kind));
      expect(
        validate({ kind: 'agent', name: 'a', model: 'offline/echo', limits: { timeout: '2m' } }),
        kind,
      ).toBe(kind === undefined || kind === 'agent');
    }
    const ajv = new Ajv2020({ strict: false });
    const entry = ajv.compile(await schema());
    expect(entry({ kind: 'model', name: 'm', provider: 'openai', model: 'gpt-4.1-mini' })).toBe(true);
    expect(entry({ kind: 'agent', name: 'a', modle: 'x' })).toBe(false);
  });
});
