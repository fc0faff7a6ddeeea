import { describe, expect, it } from 'vitest';
import { loadProject, scopeDiagnostics } from '../src/index.js';
import { project } from './helpers.js';

describe('scopeDiagnostics (what `run AGENT` blocks on)', () => {
  it('keeps errors in what the agent reaches, and makes the others warnings saying so', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools: [t]\n---\nkind: tool\nname: t\nmodule: x\n---\nkind: tool\nname: u\nmodule: x\n',
    });
    const scoped = scopeDiagnostics(await loadProject({ project: root }), 'a');
    expect(scoped.map((d) => `${d.line}:${d.severity}:${d.message.includes('not used by `a`')}`)).toEqual([
      '8:error:false',
      '12:warning:true',
    ]);
  });

  it('counts every model as reached by a model written with ${VAR}, which may name any of them', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: ${MODEL:-fast}\n---\nkind: model\nname: fast\nprovider: offline\nmodel: echo\ntemperature: 5\n',
    });
    const scoped = scopeDiagnostics(await loadProject({ project: root, env: {} }), 'a');
    expect(scoped.map((d) => `${d.line}:${d.severity}:${d.rule}`)).toEqual(['9:error:schema']);
  });

  it('finds each document of a file once, not once per problem in it', async () => {
    // Found again for every diagnostic, a file of 15,000 broken documents took a minute to start
    // a run of another agent. Counted, not timed: each document is located once.
    const docs = ['kind: agent\nname: a\nmodel: offline/echo\n'];
    for (let i = 0; i < 300; i++) docs.push(`kind: tool\nname: t${i}\nmodule: x\n`);
    const root = await project({ 'agents/a.yaml': docs.join('---\n') });
    const loaded = await loadProject({ project: root });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toHaveLength(300);
    let located = 0;
    for (const entry of loaded.entries) {
      const locate = entry.locate;
      (entry as { locate: typeof locate }).locate = (...args) => {
        located++;
        return locate(...args);
      };
    }
    const scoped = scopeDiagnostics(loaded, 'a');
    expect(scoped.filter((d) => d.severity === 'error')).toEqual([]);
    expect(scoped.filter((d) => d.message.endsWith('(not used by `a`, so not blocking it)'))).toHaveLength(
      300,
    );
    expect(located).toBeLessThanOrEqual(loaded.entries.length);
  });
});
