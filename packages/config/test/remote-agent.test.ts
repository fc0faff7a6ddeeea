// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} interpolation under test.
import { type Agent, createAgent, offline } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { compileProject, createRegistry, loadProject, type RemoteAgentSpec } from '../src/index.js';
import { project } from './helpers.js';

const YAML = `kind: agent
name: far
description: Far away
type: a2a
url: \${FAR_URL}/a2a/far
headers:
  Authorization: Bearer \${FAR_TOKEN}
---
kind: agent
name: near
model: offline/echo
sub_agents: [far]
`;

describe('type: a2a agents', () => {
  it('are made by the registered remote agent type, with ${VAR} resolved in url and headers', async () => {
    const root = await project({ 'agents/a.yaml': YAML });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    const made: RemoteAgentSpec[] = [];
    const registry = createRegistry().registerRemoteAgent('a2a', (spec): Agent => {
      made.push(spec);
      return createAgent({ name: spec.name, description: spec.description, provider: offline('echo') });
    });
    const { runtime, diagnostics } = await compileProject(loaded, {
      registry,
      env: { FAR_URL: 'http://far.example', FAR_TOKEN: 's3cret' },
    });
    expect(diagnostics).toEqual([]);
    expect(made).toEqual([
      {
        name: 'far',
        description: 'Far away',
        url: 'http://far.example/a2a/far',
        headers: { Authorization: 'Bearer s3cret' },
      },
    ]);
    expect(runtime?.agents.get('near')?.subAgents.map((a) => a.name)).toEqual(['far']);
    await runtime?.dispose();
  });

  it('fail to compile, naming the field, when no remote agent type is registered', async () => {
    const root = await project({ 'agents/a.yaml': YAML });
    const loaded = await loadProject({ cwd: root });
    const { diagnostics } = await compileProject(loaded, {
      registry: createRegistry(),
      env: { FAR_URL: 'http://x', FAR_TOKEN: 't' },
    });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        line: 4,
        severity: 'error',
        message: 'no `a2a` remote agent type is registered',
      }),
    );
  });
});
