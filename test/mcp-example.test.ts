import { cp, mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, REPO, removeTempDirs, tempDir } from './support/cli.js';

// The MCP example of agents/ as a user runs it from a clone: the real filesystem server from the
// repository's node_modules, over stdio, on the docs folder. A copy keeps sessions out of the clone.
let project: string;
beforeAll(async () => {
  project = await tempDir('agentctl-mcp-example-');
  await mkdir(join(project, 'agents'));
  await cp(join(REPO, 'agents/files.yaml'), join(project, 'agents/files.yaml'));
  await cp(join(REPO, 'docs'), join(project, 'docs'), { recursive: true });
  await symlink(join(REPO, 'node_modules'), join(project, 'node_modules'));
});
afterAll(removeTempDirs);

describe('agents/files.yaml (an MCP toolset from npm)', () => {
  it('lists and reads the docs through server-filesystem, and stops the server after', async () => {
    const { code, stdout, stderr } = await agentctl(['run', 'librarian', 'what docs are there?', '--json'], {
      cwd: project,
      timeoutMs: 60_000,
    });
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    const results = events.filter((e) => e.type === 'tool_result') as Array<{
      name: string;
      content: string;
      isError: boolean;
    }>;
    expect(results.map((r) => [r.name, r.isError])).toEqual([
      ['docs_list_directory', false],
      ['docs_read_text_file', false],
    ]);
    // What the server lists is what the copied folder holds, whatever docs the repository has.
    const docs = (await readdir(join(project, 'docs'), { withFileTypes: true }))
      .map((entry) => `${entry.isDirectory() ? '[DIR]' : '[FILE]'} ${entry.name}`)
      .sort();
    expect(docs).toContain('[FILE] cli.md');
    expect(JSON.parse(results[0].content).content.split('\n').sort()).toEqual(docs);
    expect(JSON.parse(results[1].content)).toEqual({ content: '# The command line' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('tree shows the toolset, validate passes', async () => {
    const [tree, validate] = await Promise.all([
      agentctl(['tree', 'librarian'], { cwd: project }),
      agentctl(['validate', '--strict'], { cwd: project }),
    ]);
    expect(tree.stdout).toContain('toolset: repo_docs');
    expect(validate.code, validate.stdout).toBe(0);
  });
});
