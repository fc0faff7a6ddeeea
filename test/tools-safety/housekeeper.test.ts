import { cp, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { agentctl, parseNdjson, REPO, removeTempDirs, tempDir } from '../support/cli.js';

// agents/housekeeper.yaml, the toolbox example: shell and filesystem confined to ./housekeeping,
// a todo list in the session, and a write that waits for a person's approval.
afterAll(removeTempDirs);

const FILES = [
  'agentctl.yaml',
  'agents/housekeeper.yaml',
  'agents/scripts/housekeeper.yaml',
  'agents/housekeeping/notes/home.md',
  'agents/housekeeping/notes/work.md',
];

it('lists and counts at once, pauses at the write, writes on --approve, and keeps its todo list', async () => {
  const dir = await tempDir('agentctl-housekeeper-');
  for (const file of FILES) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await cp(join(REPO, file), join(dir, file));
  }
  const first = await agentctl(['run', 'housekeeper', 'tidy the notes', '--session', 'hk', '--json'], {
    cwd: dir,
  });
  expect(first.code, first.stderr).toBe(0);
  const events = parseNdjson(first.stdout);
  const result = (id: string) =>
    events.find((e) => e.type === 'tool_result' && e.callId === id) as { content: string } | undefined;
  expect(JSON.parse(result('look')!.content)).toMatchObject({ exit_code: 0, stdout: 'home.md\nwork.md\n' });
  expect(JSON.parse(result('count')!.content).stdout).toContain('3 total');
  expect(result('read')!.content).toBe('Ship the toolbox\n');
  expect(result('done')!.content).toBe('1. [done] index the notes');
  expect(result('write_index')).toBeUndefined();
  expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
  await expect(readFile(join(dir, 'agents/housekeeping/INDEX.md'))).rejects.toThrow();

  const second = await agentctl(
    ['run', 'housekeeper', '--session', 'hk', '--approve', 'write_index', '--json'],
    {
      cwd: dir,
    },
  );
  expect(second.code, second.stderr).toBe(0);
  expect(parseNdjson(second.stdout).at(-1)).toMatchObject({
    type: 'run_end',
    status: 'complete',
    output: 'Indexed 2 notes in INDEX.md.',
  });
  expect(await readFile(join(dir, 'agents/housekeeping/INDEX.md'), 'utf8')).toBe(
    '# Notes\n- notes/home.md\n- notes/work.md\n',
  );
  const show = await agentctl(['sessions', 'show', 'hk', '--json'], { cwd: dir });
  expect(JSON.parse(show.stdout).session.state.todos).toEqual([
    { id: 1, title: 'index the notes', status: 'done' },
  ]);
});
