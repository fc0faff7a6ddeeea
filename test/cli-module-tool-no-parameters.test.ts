import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs } from './support/cli.js';
import { probeProject, resultsByCall, runMain, scriptedTurns } from './tools-safety/probe-project.js';

afterAll(removeTempDirs);

// A module tool with no `parameters`, given to an agent by `- module: PATH`, passed `validate` and
// then failed its first call as agentctl's own bug (INTERNAL_ERROR, "reading '$schema'"), while a
// `kind: tool` naming the same tool took it as taking no arguments.

describe('a module tool that declares no parameters, listed by `- module:`', () => {
  it('takes no arguments, as validate says it is fine', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedTurns('[{ module: ../tools/bare.js }]', [
        'tool_calls: [{ id: b, name: bare, arguments: {} }]',
        'text: done',
      ]),
      'tools/bare.js':
        "export default { name: 'bare', description: 'no parameters', execute: async () => 'bare ran' };\n",
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code, validate.stderr).toBe(0);
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({ b: 'bare ran' });
    expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done' });
  });
});
