import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

// Tests run at once: each test's tool leaves a marker and waits (up to 20 s) for the other test's,
// then writes whether it met it. Run one after the other, the first would wait alone and say so.
const TOOL = `import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const rendezvous = {
  name: 'rendezvous',
  description: 'Waits for the other test',
  parameters: { type: 'object', properties: { me: { type: 'string' }, other: { type: 'string' } }, required: ['me', 'other'] },
  async execute({ me, other }) {
    const dir = process.env.RENDEZVOUS_DIR;
    writeFileSync(join(dir, me), '');
    for (let i = 0; i < 200 && !existsSync(join(dir, other)); i++) await sleep(100);
    const met = existsSync(join(dir, other)) ? 'met' : 'alone';
    writeFileSync(join(dir, me + '.result'), met);
    return met;
  },
};
`;

const agent = (me: string, other: string) => `kind: agent
name: ${me}
model: ${me}-script
tools: [rendezvous]
---
kind: model
name: ${me}-script
provider: offline
model: script
script:
  - tool_calls: [{ name: rendezvous, arguments: { me: ${me}, other: ${other} } }]
  - text: done
---
kind: test
name: test-${me}
agent: ${me}
turns:
  - user: go
    expect: { tool_calls: [{ name: rendezvous }], output: { equals: done } }
`;

afterAll(removeTempDirs);

describe('agentctl test runs tests in parallel', () => {
  it('two tests whose tools wait for each other both meet', async () => {
    const dir = await tempDir('agentctl-parallel-');
    const markers = await tempDir('agentctl-markers-');
    await mkdir(join(dir, 'agents'));
    await mkdir(join(dir, 'tools'));
    await writeFile(
      join(dir, 'agentctl.yaml'),
      'kind: project\nname: parallel\ninclude: [agents/**/*.yaml]\ntests: [agents/**/*.yaml]\n',
    );
    await writeFile(join(dir, 'tools/rendezvous.js'), TOOL);
    await writeFile(
      join(dir, 'agents/tool.yaml'),
      'kind: tool\nname: rendezvous\nmodule: { path: ../tools/rendezvous.js, export: rendezvous }\ntimeout: 30s\n',
    );
    await writeFile(join(dir, 'agents/a.yaml'), agent('a', 'b'));
    await writeFile(join(dir, 'agents/b.yaml'), agent('b', 'a'));
    const result = await agentctl(['test'], {
      cwd: dir,
      env: { RENDEZVOUS_DIR: markers },
      timeoutMs: 60_000,
    });
    expect(result.stdout + result.stderr).toContain('2 test(s): 2 passed');
    expect(result.code).toBe(0);
    expect(await readFile(join(markers, 'a.result'), 'utf8')).toBe('met');
    expect(await readFile(join(markers, 'b.result'), 'utf8')).toBe('met');
  });
});
