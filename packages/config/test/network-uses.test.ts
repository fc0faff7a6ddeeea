import { describe, expect, it } from 'vitest';
import { connectToolsets, createRegistry, loadProject, networkUses } from '../src/index.js';
import { project } from './helpers.js';

const files = {
  'agents/a.yaml':
    'kind: agent\nname: a\nmodel: m\ntools: [{ toolset: box }]\n---\nkind: model\nname: m\nprovider: remote\nmodel: x\n---\nkind: toolset\nname: box\nmcp: { command: none }\ninclude: [nope]\n---\nkind: memory\nname: shared\nbackend: vault\n',
};

// A toolset kind that lists two tools without any server, and a provider that is never called.
function registry(needsNetwork: boolean, opened: string[]) {
  return createRegistry()
    .registerProvider('remote', () => ({}) as never, { capabilities: { needsNetwork: true } })
    .registerMemory('vault', () => ({}) as never, { capabilities: { needsNetwork } })
    .registerToolset(
      'mcp',
      async (toolset) => {
        opened.push(toolset.name);
        return { tools: [], dispose: async () => undefined };
      },
      { capabilities: { needsNetwork } },
    );
}

describe('capabilities.needsNetwork', () => {
  it('names what an offline validate did not reach, from the descriptors alone', async () => {
    const root = await project(files);
    const loaded = await loadProject({ project: root, env: {} });
    expect(networkUses(loaded, registry(true, []))).toEqual([
      { kind: 'model', name: 'm', plugin: 'remote' },
      { kind: 'toolset', name: 'box', plugin: 'mcp' },
      { kind: 'memory', name: 'shared', plugin: 'vault' },
    ]);
    expect(networkUses(loaded, registry(false, []))).toEqual([
      { kind: 'model', name: 'm', plugin: 'remote' },
    ]);
  });

  it('is what `validate --connect` starts: a toolset kind that needs no network is not opened again', async () => {
    const root = await project(files);
    const loaded = await loadProject({ project: root, env: {} });
    const opened: string[] = [];
    const reached = await connectToolsets(loaded, { registry: registry(true, opened), env: {} });
    expect(opened).toEqual(['box']);
    expect(reached.map((d) => d.rule)).toEqual(['mcp-names']);
    const skipped: string[] = [];
    expect(await connectToolsets(loaded, { registry: registry(false, skipped), env: {} })).toEqual([]);
    expect(skipped).toEqual([]);
  });
});
