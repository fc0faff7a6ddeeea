import { defineTool } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { compileProject, createRegistry, loadProject } from '../src/index.js';
import { project } from './helpers.js';

const files = {
  'agents/a.yaml': [
    'kind: agent\nname: a\nmodel: offline/echo\ntools: [{ toolset: good }, { toolset: broken }]\n',
    'kind: toolset\nname: good\nmcp: { command: good-server }\n',
    'kind: toolset\nname: broken\nmcp: { command: broken-server }\n',
  ].join('---\n'),
};

describe('compileProject releases what it started', () => {
  it('disposes the toolsets already open when a later step throws, then rethrows', async () => {
    const disposed: string[] = [];
    const registry = createRegistry().registerToolset('mcp', async (spec) => {
      const name = spec.name;
      const tool = defineTool({
        name: `${name}_tool`,
        description: 'a tool',
        parameters: {},
        execute: () => 'ok',
      });
      return {
        // A plugin that fails after starting its server: past the point where failures are diagnostics.
        get tools() {
          if (name === 'broken') throw new Error('the broken toolset lost its server');
          return [tool];
        },
        dispose: async () => {
          disposed.push(name);
        },
      };
    });
    const loaded = await loadProject({ project: await project(files), env: {} });
    await expect(compileProject(loaded, { env: {}, registry })).rejects.toThrow('lost its server');
    expect(disposed.sort()).toEqual(['broken', 'good']);
  });
});
