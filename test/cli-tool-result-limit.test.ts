import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// A module tool's result had no bound: one of 20 MB was kept twice in the session (its event and
// its message), sent whole to the model on this turn and on every later turn of the session, and
// held several times over in memory. It is now cut at `limits.max_tool_result_bytes` (1 MiB by
// default), on a character boundary, with a line saying so.

// 'é' is two bytes in UTF-8: a cut at an odd byte count falls inside a character.
const TOOL =
  "export default { name: 'dump', description: 'dumps', parameters: { type: 'object', properties: {} }, execute: () => 'é'.repeat(Number(process.env.DUMP_CHARS)) };\n";

async function project(limits: string): Promise<string> {
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/a.yaml': [
      'kind: agent',
      'name: a',
      'model: offline/auto',
      'tools: [{ module: ../tools/dump.js }]',
      limits,
      '',
    ].join('\n'),
    'tools/dump.js': TOOL,
  });
}

function resultOf(stdout: string): string {
  const result = parseNdjson(stdout).find((e) => e.type === 'tool_result');
  return (result as { content: string } | undefined)?.content ?? '';
}

describe('a tool result larger than the limit', () => {
  it('is cut at 1 MiB by default, in the events and in the session', async () => {
    const dir = await project('');
    const run = await agentctl(['run', 'a', 'go', '--session', 's', '--json'], {
      cwd: dir,
      env: { DUMP_CHARS: String(2 * 1024 * 1024) },
    });
    expect(run.code, run.stderr).toBe(0);
    const content = resultOf(run.stdout);
    expect(content).toMatch(/^é+\n\[truncated: the result has 4194304 bytes; the first 1048576 are shown\]$/);
    // The result is kept twice (its event and its message): about 2 MiB, not 8.
    const { size } = await stat(join(dir, '.agentctl/sessions/s.jsonl'));
    expect(size).toBeLessThan(3 * 1024 * 1024);
  });

  it('is cut at limits.max_tool_result_bytes, never inside a character', async () => {
    const dir = await project('limits: { max_tool_result_bytes: 101 }');
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code, validate.stderr + validate.stdout).toBe(0);
    const run = await agentctl(['run', 'a', 'go', '--json'], { cwd: dir, env: { DUMP_CHARS: '1000' } });
    expect(run.code, run.stderr).toBe(0);
    expect(resultOf(run.stdout)).toBe(
      `${'é'.repeat(50)}\n[truncated: the result has 2000 bytes; the first 100 are shown]`,
    );
  });

  it('is sent whole at or under the limit', async () => {
    const dir = await project('limits: { max_tool_result_bytes: 100 }');
    const run = await agentctl(['run', 'a', 'go', '--json'], { cwd: dir, env: { DUMP_CHARS: '50' } });
    expect(run.code, run.stderr).toBe(0);
    expect(resultOf(run.stdout)).toBe('é'.repeat(50));
  });

  it('refuses a limit that is not a positive whole number, at its line', async () => {
    const dir = await project('limits: { max_tool_result_bytes: 0 }');
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toMatch(/agents\/a\.yaml:5:\d+/);
    expect(validate.stdout + validate.stderr).toContain('max_tool_result_bytes');
  });
});
