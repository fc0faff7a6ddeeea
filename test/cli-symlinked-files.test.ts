import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const echo = (name: string) => `kind: agent\nname: ${name}\nmodel: offline/echo\n`;

describe('symlinked YAML files', () => {
  it('validate and run read an agent file and folder linked inside the project, and tell of a link out', async () => {
    const outside = await tempProject({ 'agents/stranger.yaml': echo('stranger') });
    const root = await tempProject({
      'agentctl.yaml': 'kind: project\nname: linked\n',
      'agents/own.yaml': echo('own'),
      'library/linked.yaml': echo('linked'),
      'library/team/deep.yaml': echo('deep'),
    });
    symlinkSync('../library/linked.yaml', join(root, 'agents/linked.yaml'));
    symlinkSync('../library/team', join(root, 'agents/team'));
    symlinkSync(join(outside, 'agents/stranger.yaml'), join(root, 'agents/stranger.yaml'));

    const validate = await agentctl(['validate', '--format', 'json'], { cwd: root });
    expect(validate.code).toBe(0);
    const report = JSON.parse(validate.stdout) as {
      files: string[];
      diagnostics: Array<{ file: string; severity: string; rule: string; message: string }>;
    };
    expect(report.files.map((f) => f.slice(root.length + 1))).toEqual([
      'agentctl.yaml',
      'agents/linked.yaml',
      'agents/own.yaml',
      'agents/team/deep.yaml',
    ]);
    expect(report.diagnostics).toEqual([
      expect.objectContaining({
        file: 'agents/stranger.yaml',
        line: 1,
        col: 1,
        severity: 'warning',
        rule: 'project-file',
        message: 'agents/stranger.yaml is a symlink to outside the project: not read',
      }),
    ]);

    for (const agent of ['linked', 'deep']) {
      const run = await agentctl(['run', agent, 'over the link', '--json'], { cwd: root });
      expect(run.code, run.stderr).toBe(0);
      expect(parseNdjson(run.stdout).at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    }
    const refused = await agentctl(['run', 'stranger', 'hi'], { cwd: root });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('stranger');
  });
});
