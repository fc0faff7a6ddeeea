import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// Runs of one user at the same time, each its own process on the file store: every note the
// memory tool said it remembered is there afterwards, under its own number.
describe('the memory tool with runs of one user at the same time', () => {
  it('eight parallel `agentctl run --user ada` keep eight notes numbered 1 to 8', async () => {
    const dir = await tempProject({
      'agents/helper.yaml': 'kind: agent\nname: helper\nmodel: offline/auto\ntools: [{ builtin: memory }]\n',
    });
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        agentctl(['run', 'helper', `remember ${n + 1}`, '--user', 'ada'], { cwd: dir, timeoutMs: 60_000 }),
      ),
    );
    const told: number[] = [];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      const number = /remembered as note (\d+)/.exec(run.stdout)?.[1];
      expect(number, run.stdout).toBeDefined();
      told.push(Number(number));
    }
    // No two runs were told the same number.
    expect([...told].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const file = JSON.parse(
      await readFile(join(dir, '.agentctl/sessions/scopes/user%3Aada.json'), 'utf8'),
    ) as { state: { 'user:memories': Array<{ id: number; note: string; time: string }> } };
    const notes = file.state['user:memories'];
    expect(notes.map((n) => n.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const note of notes) expect(note.note).toBe('example');
  }, 90_000);
});
