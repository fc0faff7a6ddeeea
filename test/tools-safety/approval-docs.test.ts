import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, REPO, removeTempDirs } from '../support/cli.js';
import { probeProject, toolResults } from './probe-project.js';

// The approval rule grammar as docs/format.md shows it: its example is validated and run.
afterAll(removeTempDirs);

async function docsExample(name: string): Promise<string> {
  const markdown = await readFile(join(REPO, 'docs/format.md'), 'utf8');
  const block = [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```/gm)]
    .map((m) => m[1])
    .find((text) => text.startsWith(`kind: agent\nname: ${name}\n`));
  if (!block) throw new Error(`docs/format.md has no example agent ${name}`);
  return block;
}

async function operatorProject(agentYaml?: string): Promise<string> {
  return probeProject({
    'agents/operator.yaml': agentYaml ?? (await docsExample('operator')),
    // The example's command tools run in the project folder (`cwd: ..` from agents/).
    'notes/todo.md': 'water the plants\n',
  });
}

describe.concurrent('the approval rules of docs/format.md', () => {
  it('validate accepts the example', async () => {
    const dir = await operatorProject();
    const { code, stdout, stderr } = await agentctl(['validate'], { cwd: dir });
    expect(code, stdout + stderr).toBe(0);
  });

  it('runs what the rules allow, refuses what they deny, and asks about the rest', async () => {
    const dir = await operatorProject();
    const { code, stdout, stderr } = await agentctl(['run', 'operator', 'tidy up', '--json'], { cwd: dir });
    expect(code, stderr).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
    const results = Object.fromEntries(
      toolResults(events).map((r) => [(r as unknown as { callId: string }).callId, r]),
    );
    expect(results.read).toMatchObject({ content: 'water the plants' });
    expect(results.write?.isError ?? false).toBe(false);
    expect(await readFile(join(dir, 'notes/done.md'), 'utf8')).toBe('shipped\n');
    expect(results.escape).toMatchObject({ isError: true });
    expect(results.escape.content).toContain('denied');
    expect(results.other).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    const paused = events.find((e) => e.type === 'approval_required') as {
      pending: Array<{ call: { id: string } }>;
    };
    expect(paused.pending.map((p) => p.call.id)).toEqual(['other']);
  });

  it('--allow with a named argument lets the asked call run', async () => {
    const dir = await operatorProject();
    const { code, stderr } = await agentctl(
      ['run', 'operator', 'tidy up', '--json', '--allow', 'write_note:path=elsewhere.*'],
      { cwd: dir },
    );
    expect(code, stderr).toBe(0);
    expect(await readFile(join(dir, 'elsewhere.txt'), 'utf8')).toBe('notes/a.md\n');
  });

  it('the toolbox example validates and runs on the offline auto model', async () => {
    const dir = await probeProject({
      'agents/assistant.yaml': await docsExample('assistant'),
      'agents/workspace/readme.md': 'hello\n',
      'shared/.keep': '',
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const run = await agentctl(['run', 'assistant', 'help', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; pending?: Array<{ call: { name: string } }> });
    // The auto model calls every tool once: shell and the writing tools wait for a person.
    const waiting = events
      .find((e) => e.type === 'approval_required')
      ?.pending?.map((p) => p.call.name)
      .sort();
    expect(waiting).toEqual(['edit_file', 'shell', 'write_file']);
  });

  it('validate refuses the rules the docs call refused, each at its line', async () => {
    const example = await docsExample('operator');
    const refused = example.replace(
      '    - current_time\n',
      '    - current_time\n    - write_note:*.md\n    - { tool: read_note, args: { file: "*" } }\n',
    );
    expect(refused).not.toBe(example);
    const dir = await operatorProject(refused);
    const { code, stdout } = await agentctl(['validate'], { cwd: dir });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /agents\/operator\.yaml:13:\d+: error: .*write_note has 2 string arguments \(path, text\)/,
    );
    expect(stdout).toMatch(
      /agents\/operator\.yaml:14:\d+: error: read_note has no argument `file` \(its arguments: path\)/,
    );
    const run = await agentctl(['run', 'operator', 'tidy up'], { cwd: dir });
    expect(run.code).toBe(1);
  });
});
