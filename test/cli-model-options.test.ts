import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(removeTempDirs);

async function projectWith(yaml: string): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'agents'), { recursive: true });
  await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
  await writeFile(join(dir, 'agents/a.yaml'), yaml);
  return dir;
}

describe('model settings from YAML to the wire', () => {
  it('sends reasoning effort, parallel_tool_calls and extra_body from the YAML model to an OpenAI server', async () => {
    server = await startFakeServer([{ sse: openaiText('done') }]);
    const dir = await projectWith(
      [
        'kind: agent',
        'name: a',
        'model: thinker',
        'tools: [{ builtin: current_time }]',
        '---',
        'kind: model',
        'name: thinker',
        'provider: openai',
        'model: o4-mini',
        `base_url: ${server.url}`,
        'reasoning: { effort: low }',
        'parallel_tool_calls: false',
        'options: { max_tokens_field: max_tokens, extra_body: { seed: 11 } }',
        'max_output_tokens: 50',
        '',
      ].join('\n'),
    );
    const validated = await agentctl(['validate', '-C', dir]);
    expect(validated.code).toBe(0);
    const run = await agentctl(['run', '-C', dir, 'a', 'hi']);
    expect(run.stderr).not.toMatch(/error/);
    expect(run.code).toBe(0);
    expect(server.requests[0].body).toMatchObject({
      model: 'o4-mini',
      reasoning_effort: 'low',
      parallel_tool_calls: false,
      seed: 11,
      max_tokens: 50,
    });
  });

  it('validate reports in one pass every error run would refuse, each with file, line and rule', async () => {
    const fixture = join(REPO, 'packages/config/test/fixtures/invalid/validate-one-pass');
    const validated = await agentctl(['validate', '-C', fixture, '--format', 'json']);
    expect(validated.code).toBe(1);
    const report = JSON.parse(validated.stdout) as { diagnostics: Array<{ rule: string; line: number }> };
    expect(report.diagnostics.map((d) => `${d.line}:${d.rule}`)).toEqual([
      '5:unknown-builtin',
      '6:module-exports',
      '11:unknown-provider',
      '19:env-empty',
      '26:plugin-options',
    ]);
  });
});
