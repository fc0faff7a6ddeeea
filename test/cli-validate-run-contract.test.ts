import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const PROJECT = 'kind: project\nname: p\n';

describe('what validate passes, run accepts at load', () => {
  it('a positive duration under a millisecond (0.4ms) is at least 1 ms, not a zero that run refuses', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nlimits: { tool_timeout: 0.4ms }\n',
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout + validate.stderr).toContain('no problems');
    expect(validate.code).toBe(0);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.stderr).not.toContain('must be longer than zero');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('hi');
  });
});
