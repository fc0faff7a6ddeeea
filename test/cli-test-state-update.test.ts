import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// Two calls of one step each add one to `app:n` with `state.update`; the first ends last, so its
// result (recorded last) carries the value its own update made.
const FILES = {
  'agentctl.yaml': 'kind: project\nname: bumps\ninclude: [agents/a.yaml]\n',
  'agents/a.yaml': [
    'kind: agent',
    'name: bumper',
    'model: bump_script',
    'instruction: bump',
    'tools: [{ module: ../tools/bump.js }]',
    '---',
    'kind: model',
    'name: bump_script',
    'provider: offline',
    'model: script',
    'script: ./bump-script.yaml',
    '',
  ].join('\n'),
  'agents/bump-script.yaml': [
    '- tool_calls:',
    '    - { id: b1, name: bump, arguments: { wait: 30 } }',
    '    - { id: b2, name: bump, arguments: { wait: 0 } }',
    '- text: bumped',
    '',
  ].join('\n'),
  'tools/bump.js': `export default {
  name: 'bump', description: 'adds one to app:n',
  parameters: { type: 'object', properties: { wait: { type: 'number' } }, required: ['wait'] },
  async execute({ wait }, { state }) {
    const n = await state.update('app:n', (n) => (n ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, wait));
    return n;
  },
};
`,
  'tests/bump.yaml': [
    'kind: test',
    'name: both-bumps-count',
    'agent: bumper',
    'turns:',
    '  - user: go',
    '    expect:',
    '      state: { "app:n": 2 }',
    '',
  ].join('\n'),
};

describe('agentctl test, state after a step whose calls update one key', () => {
  it('sees the value stored after both updates, whichever call ended last', async () => {
    const dir = await tempProject(FILES);
    const { code, stdout, stderr } = await agentctl(['test'], { cwd: dir });
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toContain('1 passed');
  });
});
