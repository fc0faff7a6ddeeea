import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSessionStore } from '../packages/store-file/src/index.js';
import { agentctl, pasteLine, removeTempDirs, tempProject } from './support/cli.js';

// `sessions list --limit/--cursor` through the built CLI on a project's file store of 40 sessions
// (made through the store itself: forty runs would take a minute).
let dir: string;
let store: FileSessionStore;
const ids = Array.from({ length: 40 }, (_, i) => `s${String(i).padStart(2, '0')}`);

beforeAll(async () => {
  dir = await tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/e.yaml': 'kind: agent\nname: e\nmodel: offline/echo\n',
  });
  store = new FileSessionStore({ path: join(dir, '.agentctl/sessions'), durable: false });
  for (const id of ids) await store.create({ id, agent: 'e' });
});
afterAll(removeTempDirs);

type Page = { sessions: Array<{ id: string; corrupt?: string }>; nextCursor?: string };

async function page(limit: number, cursor?: string): Promise<Page> {
  const args = ['sessions', 'list', '--json', '--limit', String(limit)];
  const result = await agentctl(cursor ? [...args, '--cursor', cursor] : args, { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Page;
}

describe('sessions list --limit / --cursor', () => {
  it('pages newest first; a session created, written or removed between pages is neither skipped nor repeated', async () => {
    const expected = (await store.list()).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const listed: string[] = [];
    let cursor: string | undefined;
    let removed: string | undefined;
    for (let n = 0; n < 20; n++) {
      const answer = await page(9, cursor);
      listed.push(...answer.sessions.map((s) => s.id));
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
      await store.create({ id: `late-${n}`, agent: 'e' });
      for (const s of expected) if (!listed.includes(s.id) && s.id !== removed) await store.append(s.id, []);
      if (n === 1) {
        removed = expected[listed.length]!.id;
        await store.delete(removed);
      }
    }
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.filter((id) => !id.startsWith('late-'))).toEqual(
      expected.map((s) => s.id).filter((id) => id !== removed),
    );
  });

  it('prints a table of the page and the command for the next one on stderr, which runs as printed', async () => {
    // From the parent folder with -C: the printed command must reach the same project.
    const first = await agentctl(['-C', basename(dir), 'sessions', 'list', '--limit', '3'], {
      cwd: dirname(dir),
    });
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(4);
    const more = /^more: (.* -C \S+ sessions list --limit 3 --cursor \S+)$/m.exec(first.stderr);
    expect(more, first.stderr).not.toBeNull();
    const second = await pasteLine(more![1]!, dirname(dir));
    expect(second.code, second.stderr).toBe(0);
    const rows = (text: string) =>
      text
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[0]);
    const all = (await page(6)).sessions.map((s) => s.id);
    expect([...rows(first.stdout), ...rows(second.stdout)]).toEqual(all);
  });

  it('marks a corrupt session file of the page, as a full list does', async () => {
    const all = (await page(1000)).sessions.map((s) => s.id);
    const victim = all[1]!;
    await writeFile(store.fileOf(victim), '{"version":1,"id":"');
    const result = await agentctl(['sessions', 'list', '--limit', '2', '--json'], { cwd: dir });
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as Page;
    expect(answer.sessions[1]).toMatchObject({ id: victim, corrupt: expect.stringContaining(victim) });
    await store.delete(victim);
  });

  it('refuses a bad limit, a cursor it did not print, and the options on other actions (exit 2, one line)', async () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const [args, message] of [
      [['--limit', '0'], /--limit must be a whole number from 1 to 1000, not "0"/],
      [['--cursor', forged([1, 's01'])], /--cursor needs --limit/],
      [['--limit', '5', '--cursor', 'not-a-cursor'], /--cursor must be a cursor an earlier/],
      [['--limit', '5', '--cursor', forged([1, 'sé'])], /--cursor must be a cursor an earlier/],
    ] as const) {
      const result = await agentctl(['sessions', 'list', ...args], { cwd: dir });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
    const show = await agentctl(['sessions', 'show', 's01', '--limit', '2'], { cwd: dir });
    expect(show.code).toBe(2);
    expect(show.stderr).toMatch(/--limit and --cursor are options of `sessions list`/);
    const extra = await agentctl(['sessions', 'list', 's01'], { cwd: dir });
    expect(extra.code).toBe(2);
  });
});
