import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const CLI = new URL('../packages/cli/bin/agentctl.js', import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;

async function agentctl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec('node', [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('agentctl run --model', () => {
  it('runs the agent on the given model instead of its own', async () => {
    const echo = await agentctl('run', 'hello', 'hi there');
    expect(echo.stdout.trim()).toBe('hi there');
    const auto = await agentctl('run', 'hello', 'hi there', '--model', 'offline/auto');
    expect(auto).toMatchObject({ code: 0 });
    expect(auto.stdout.trim()).toBe('No tools to call. Done.');
  });

  it('an unknown model is a diagnostic with file:line:col and exit 1, and only the agent asked for is compiled', async () => {
    const result = await agentctl('run', 'hello', 'hi', '--model', 'nope');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'agents/hello.yaml:5:8: error: model `nope` is not defined [unresolved-reference]',
    );
    expect(result.stderr).not.toContain('triage.yaml');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
