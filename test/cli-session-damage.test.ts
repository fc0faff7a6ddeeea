import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// A session file damaged on disk before `run --session` continues it: a last record torn by a
// crash mid-write is a normal end of the log; anything else is the user's file to look at.

async function twoTurns(): Promise<{ dir: string; file: string }> {
  const dir = await tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/e.yaml': 'kind: agent\nname: e\nmodel: offline/echo\n',
  });
  for (const prompt of ['one', 'two']) {
    const run = await agentctl(['run', 'e', prompt, '--session', 's1'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
  }
  return { dir, file: join(dir, '.agentctl/sessions/s1.jsonl') };
}

describe('run --session on a damaged session file', () => {
  it('continues after a torn last record, which is dropped, and the file reads whole again', async () => {
    const { dir, file } = await twoTurns();
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n');
    const last = lines.at(-2) as string;
    await writeFile(file, `${lines.slice(0, -2).join('\n')}\n${last.slice(0, last.length >> 1)}`);
    const run = await agentctl(['run', 'e', 'three', '--session', 's1'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('three');
    const show = await agentctl(['sessions', 'show', 's1'], { cwd: dir });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('user: one\ne: one\nuser: three\ne: three\n');
  });

  it('refuses a record of bad JSON inside the log: exit 1, the file named, no internal error', async () => {
    const { dir, file } = await twoTurns();
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[1] = lines[1].replace('"events"', '"events"x');
    const damaged = lines.join('\n');
    await writeFile(file, damaged);
    const run = await agentctl(['run', 'e', 'three', '--session', 's1'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`agentctl: session file ${file} is corrupt: record at byte`);
    expect(run.stderr).toContain('start a new session, or remove this one with `agentctl sessions rm s1`');
    expect(run.stderr).not.toContain('internal error');
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });
});
