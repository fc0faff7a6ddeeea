import { InMemorySessionStore, type ModelProvider, Runner } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { compileProject, createRegistry, loadProject } from '../src/index.js';
import { project } from './helpers.js';

describe('scoped state keys from YAML', () => {
  it('output_key user:KEY is saved for the user and {{ state.user:KEY }} reads it in another session', async () => {
    const root = await project({
      'agents/a.yaml': [
        'kind: agent',
        'name: remember',
        'model: offline/echo',
        'output_key: user:last',
        '---',
        'kind: agent',
        'name: recall',
        'model: offline/echo',
        'instruction: "Last time you said {{ state.user:last }}; app says {{ state.app:motd }}."',
        '',
      ].join('\n'),
    });
    const loaded = await loadProject({ project: root, env: {} });
    expect(loaded.diagnostics).toEqual([]);
    const systems: Array<string | undefined> = [];
    const compiled = await compileProject(loaded, {
      env: {},
      registry: createRegistry(),
      wrapProvider: (provider: ModelProvider) => ({
        ...provider,
        stream: (params) => {
          systems.push(params.system);
          return provider.stream(params);
        },
      }),
    });
    const store = new InMemorySessionStore();
    const agents = compiled.runtime?.agents;
    await new Runner({ agent: agents?.get('remember') as never, store }).run({ input: 'blue', userId: 'ada' })
      .invocation;
    await new Runner({ agent: agents?.get('recall') as never, store }).run({ input: 'hi', userId: 'ada' })
      .invocation;
    expect(systems.at(-1)).toBe('Last time you said blue; app says .');
  });

  it('an output_key with another scope is a schema error naming the field', async () => {
    const root = await project({ 'agents/a.yaml': 'kind: agent\nname: a\noutput_key: "team:x"\n' });
    const loaded = await loadProject({ project: root, env: {} });
    expect(loaded.diagnostics.map((d) => [d.rule, d.line])).toEqual([['schema', 3]]);
    expect(loaded.diagnostics[0].message).toMatch(/^`output_key`/);
  });
});
