import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LlmAgent, Runner } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { compileProject, loadProject } from '../src/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function project(yaml: string) {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-history-'));
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'agents', 'a.yaml'), yaml);
  const loaded = await loadProject({ cwd: dir, env: {} });
  return { loaded, ...(await compileProject(loaded, { env: {} })) };
}

describe('max_history in YAML', () => {
  it('bounds what the model is sent, as a message count or an object', async () => {
    const { runtime, diagnostics } = await project(
      'kind: agent\nname: a\nmodel: offline/echo\nmax_history: 3\n---\nkind: agent\nname: b\nmodel: offline/echo\nmax_history: { tokens: 500 }\n',
    );
    expect(diagnostics).toEqual([]);
    expect((runtime!.agents.get('a') as LlmAgent).getConfig().maxHistory).toBe(3);
    expect((runtime!.agents.get('b') as LlmAgent).getConfig().maxHistory).toEqual({ tokens: 500 });
    const runner = new Runner({ agent: runtime!.agents.get('a')! });
    for (const text of ['one', 'two', 'three']) await runner.run({ input: text, sessionId: 's' }).invocation;
    const session = await runner.store.get('s');
    expect(session?.events.filter((e) => e.type === 'message')).toHaveLength(6);
  });

  it('rejects an empty or unknown limit with a position', async () => {
    const { loaded } = await project('kind: agent\nname: a\nmax_history: { turns: 3 }\n');
    expect(loaded.diagnostics.map((d) => [d.rule, d.line])).toEqual([['unknown-key', 3]]);
  });
});
