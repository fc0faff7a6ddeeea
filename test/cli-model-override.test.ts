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

  it('an unknown --model is a usage error that blames the flag (exit 2), with a suggestion', async () => {
    const result = await agentctl('run', 'hello', 'hi', '--model', 'nope');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--model nope: no model of that name');
    expect(result.stderr).not.toContain('hello.yaml');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const typo = await agentctl('run', 'hello', 'hi', '--model', 'ofline/echo');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '--model ofline/echo: provider `ofline` is not available; did you mean `offline`?',
    );
  });

  it('a --model its provider has no such model for is a usage error naming the flag, not the YAML', async () => {
    const unknown = await agentctl('run', 'hello', 'hi', '--model', 'offline/nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'agentctl: --model offline/nope: provider `offline` has no model `nope` (its models: echo, script, auto, replay)\n',
    );
    const replay = await agentctl('run', 'hello', 'hi', '--model', 'offline/replay');
    expect(replay.code).toBe(2);
    expect(replay.stderr).toMatch(/^agentctl: --model offline\/replay: it needs `cassette:`/);
    expect(replay.stderr).not.toContain('hello.yaml');
  });
});
