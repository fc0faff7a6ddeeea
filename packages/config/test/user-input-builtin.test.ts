import { BUILTIN_TOOLS } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { compileProject, createRegistry, formatDiagnostic, loadProject } from '../src/index.js';
import { project } from './helpers.js';

async function compile(tools: string) {
  const root = await project({
    'agents/a.yaml': `kind: agent\nname: a\nmodel: offline/echo\ntools:\n${tools}`,
  });
  const loaded = await loadProject({ project: root, env: {} });
  const registry = createRegistry();
  for (const name of ['user_input', 'current_time'] as const)
    registry.registerBuiltinTool(name, BUILTIN_TOOLS[name], registry.describe('builtinTool', name));
  const compiled = await compileProject(loaded, { env: {}, registry });
  return { loaded, ...compiled };
}

describe('builtin: user_input', () => {
  it('takes `description` from the YAML as what the model reads about the tool', async () => {
    const { loaded, runtime, diagnostics } = await compile(
      '  - builtin: user_input\n    description: Ask which invoice the user means.\n',
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(diagnostics).toEqual([]);
    const tool = runtime!.agents.get('a')!.tools.get('user_input')!;
    expect(tool.description).toBe('Ask which invoice the user means.');
    expect(tool.parameters).toMatchObject({ required: ['question'] });
    await runtime!.dispose();
  });

  it('has a default description when none is given', async () => {
    const { runtime } = await compile('  - builtin: user_input\n');
    expect(runtime!.agents.get('a')!.tools.get('user_input')!.description).toMatch(
      /^Asks the user a question/,
    );
    await runtime!.dispose();
  });

  it('`description` is an option of user_input only', async () => {
    const { diagnostics } = await compile('  - builtin: current_time\n    description: what time\n');
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /built-in current_time: unknown option `description` \(known: timezone\) \[plugin-options\]/,
      ),
    ]);
  });
});
