import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

// A repository whose agentctl project lives in a subfolder: GitHub places annotations by their
// path from the repository root, so that is the path `--format github` must write.
let repo: string;
let project: string;
beforeAll(async () => {
  repo = await tempDir('agentctl-repo-');
  project = join(repo, 'services/bot');
  await mkdir(join(project, 'agents'), { recursive: true });
  await writeFile(join(project, 'agentctl.yaml'), 'kind: project\nname: bot\n');
  await writeFile(
    join(project, 'agents/bad.yaml'),
    'kind: agent\nname: bad\nmodel: offline/echo\nmodle: x\n',
  );
});
afterAll(removeTempDirs);

const FILE = /^::error file=([^,]+),line=4,col=1,/;

describe.concurrent('validate --format github in a project below the repository root', () => {
  it('on GitHub Actions, paths are relative to GITHUB_WORKSPACE, from any folder', async () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: repo };
    const [fromRoot, fromProject] = await Promise.all([
      agentctl(['-C', 'services/bot', 'validate'], { cwd: repo, env }),
      agentctl(['validate'], { cwd: project, env }),
    ]);
    for (const result of [fromRoot, fromProject]) {
      expect(result.code).toBe(1);
      expect(FILE.exec(result.stdout)?.[1], result.stdout).toBe('services/bot/agents/bad.yaml');
    }
  });

  it('elsewhere, paths are relative to the current folder', async () => {
    const { code, stdout } = await agentctl(['-C', 'services/bot', 'validate', '--format', 'github'], {
      cwd: repo,
    });
    expect(code).toBe(1);
    expect(FILE.exec(stdout)?.[1], stdout).toBe('services/bot/agents/bad.yaml');
  });

  it('a project outside the workspace keeps its project-relative paths', async () => {
    const other = await tempDir();
    const { stdout } = await agentctl(['validate', '--format', 'github'], {
      cwd: project,
      env: { GITHUB_WORKSPACE: other },
    });
    expect(FILE.exec(stdout)?.[1], stdout).toBe('agents/bad.yaml');
  });
});
