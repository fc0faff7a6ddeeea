import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

// `start_timeout:` on an MCP toolset: how long its server has to start, answer the handshake and
// list its tools (30 s unless set), from the YAML to the server given up on.

afterAll(removeTempDirs);

async function project(startTimeout: string): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: slow\n');
  // A server that starts and never answers.
  await writeFile(
    join(dir, 'mute.mjs'),
    "process.stderr.write('warming up forever\\n');\nsetInterval(() => {}, 1000);\n",
  );
  await writeFile(
    join(dir, 'agents/slow.yaml'),
    [
      'kind: toolset',
      'name: mute',
      `mcp: { command: ${JSON.stringify(process.execPath)}, args: [mute.mjs] }`,
      `start_timeout: ${startTimeout}`,
      '---',
      'kind: agent',
      'name: slow',
      'model: offline/echo',
      'tools: [{ toolset: mute }]',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('MCP toolset start_timeout', () => {
  it('gives a server that never answers the time the YAML says, then names the toolset and its stderr', async () => {
    const dir = await project('700ms');
    const started = Date.now();
    const result = await agentctl(['run', 'slow', 'hi'], { cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('no answer to the MCP handshake within 700 ms');
    expect(result.stderr).toContain('warming up forever');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Well under the 30 s default.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('is checked as a duration by validate, at its line and column', async () => {
    const dir = await project('soon');
    const result = await agentctl(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/agents\/slow\.yaml:4:16: error: .*start_timeout/);
  });
});
