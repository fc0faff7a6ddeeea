import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCassette } from '../packages/config/src/index.js';
import { findPairingProblem } from '../packages/core/src/index.js';
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
    // The torn record (the second run's answer) is gone; what came before it, and after, reads whole.
    expect(show.stdout).toContain('user: one\ne: one\nuser: two\nuser: three\ne: three\n');
  });

  it('refuses a record of bad JSON inside the log: exit 1, the file named, no internal error', async () => {
    const { dir, file } = await twoTurns();
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[1] = lines[1].replace('"events"', '"events"x');
    const damaged = lines.join('\n');
    await writeFile(file, damaged);
    const run = await agentctl(['run', 'e', 'three', '--session', 's1'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `agentctl: session file ${file} is corrupt: line 2 (byte ${Buffer.byteLength(lines[0]) + 1}): invalid JSON`,
    );
    // The removal is written as it can be typed here (`node <script>` when no agentctl is on the PATH).
    expect(run.stderr).toMatch(
      /fix or delete line 2 of the file, which keeps what the other lines hold; or start a new session, or remove this one with `(agentctl|node \S+) sessions rm s1`, which loses all of it/,
    );
    expect(run.stderr).not.toContain('internal error');
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });

  // Following the hint in an editor: the bad record's text deleted, its line left blank. The blank
  // line was itself refused as invalid JSON.
  it('continues once the named line is emptied, keeping every other line', async () => {
    const { dir, file } = await twoTurns();
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[1] = lines[1].replace('"events"', '"events"x');
    await writeFile(file, lines.join('\n'));
    const refused = await agentctl(['run', 'e', 'three', '--session', 's1'], { cwd: dir });
    expect(refused.stderr).toContain('fix or delete line 2 of the file');
    lines[1] = '  ';
    await writeFile(file, lines.join('\n'));
    const run = await agentctl(['run', 'e', 'three', '--session', 's1'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const show = await agentctl(['sessions', 'show', 's1'], { cwd: dir });
    expect(show.code, show.stderr).toBe(0);
    // Line 2 held the first turn's start and question; its answer and the second turn are kept.
    expect(show.stdout).toContain('e: one\nuser: two\ne: two\nuser: three\ne: three\n');
  });

  // A record deleted by hand can take a tool call with it and leave its result: the request then
  // had a result answering no call, refused as "not a valid request" (MODEL_ERROR) on every turn.
  it('continues when a deleted line took a tool call and left its result', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': [
        'kind: agent',
        'name: a',
        'model: offline/auto',
        'tools: [{ module: ../tools/ok.js }]',
        '---',
        'kind: agent',
        'name: e',
        'model: offline/echo',
        '',
      ].join('\n'),
      'tools/ok.js':
        "export default { name: 'ok', description: 'says ok', parameters: { type: 'object', properties: {} }, execute: () => 'ok' };\n",
    });
    const first = await agentctl(['run', 'a', 'check', '--session', 's1'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const file = join(dir, '.agentctl/sessions/s1.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const call = lines.findIndex((line) => line.includes('"toolCalls"'));
    expect(lines.findIndex((line) => line.includes('"role":"tool"'))).toBeGreaterThan(call);
    lines[call] = '';
    await writeFile(file, lines.join('\n'));
    const cassette = join(dir, 'calls.yaml');
    const run = await agentctl(['run', 'e', 'again', '--session', 's1', '--record', cassette], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('again');
    const [request] = (await readCassette(cassette)).interactions.map((i) => i.request);
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(findPairingProblem(request.messages)).toBeUndefined();
  });

  // A hand edit that leaves valid JSON: an event without its branch crashed the run (exit 3,
  // "internal error: Cannot read properties of undefined"), `sessions show` too.
  it('refuses an event edited out of shape, naming its line, in run and in sessions show', async () => {
    const { dir, file } = await twoTurns();
    const lines = (await readFile(file, 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.includes('"type":"message"'));
    const record = JSON.parse(lines[at]) as { events: Array<Record<string, unknown>> };
    for (const event of record.events) if (event.type === 'message') delete event.branch;
    lines[at] = JSON.stringify(record);
    const damaged = lines.join('\n');
    await writeFile(file, damaged);
    const run = await agentctl(['run', 'e', 'three', '--session', 's1'], { cwd: dir });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `agentctl: session file ${file} is corrupt: line ${at + 1} (byte ${Buffer.byteLength(lines.slice(0, at).join('\n')) + 1}): a message event's "branch" is missing or not a string`,
    );
    expect(run.stderr).toContain(`fix or delete line ${at + 1} of the file`);
    const show = await agentctl(['sessions', 'show', 's1'], { cwd: dir });
    expect(show.code, show.stderr).toBe(1);
    expect(show.stderr).toContain(`line ${at + 1} (byte`);
    expect(show.stderr).not.toContain('internal error');
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });
});

// An export file is data from anywhere: what it holds must not reach the terminal as control
// sequences (clear the screen, retitle the window, reorder a line with a bidi override).
describe('sessions import of a hostile export', () => {
  const ESC = '\u001b';
  it('round-trips, and show and list print its text escaped', async () => {
    const { dir } = await twoTurns();
    const exported = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    const file = JSON.parse(exported.stdout) as {
      session: { id: string; agent: string; state: Record<string, unknown>; events: unknown[] };
    };
    const base = { invocationId: 'i', branch: 'e', time: 1 };
    file.session.id = 'hostile';
    file.session.agent = `e${ESC}[2J`;
    file.session.state = { note: 'left\u202eright' };
    file.session.events.push(
      {
        ...base,
        id: 'i.1',
        author: `e${ESC}]0;owned\u0007`,
        type: 'message',
        message: {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: `c${ESC}[1A`, name: `rm${ESC}[2K`, arguments: { a: `${ESC}]8;;http://x\u0007` } },
          ],
        },
      },
      { ...base, id: 'i.2', author: 'e', type: 'error', code: `X${ESC}[31m`, message: `bad${ESC}[0m` },
    );
    const path = join(dir, 'hostile.json');
    await writeFile(path, JSON.stringify(file));
    const imported = await agentctl(['sessions', 'import', path], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    const again = await agentctl(['sessions', 'show', 'hostile', '--json'], { cwd: dir });
    expect(JSON.parse(again.stdout).session.events).toEqual(file.session.events);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    const unprintable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    for (const args of [
      ['sessions', 'show', 'hostile'],
      ['sessions', 'list'],
    ]) {
      const shown = await agentctl(args, { cwd: dir });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).not.toMatch(unprintable);
    }
    const shown = await agentctl(['sessions', 'show', 'hostile'], { cwd: dir });
    expect(shown.stdout).toContain('  → rm\\u001b[2K(');
    expect(shown.stdout).toContain('(agent e\\u001b[2J)');
  });
});

// A person approves the calls a paused session shows; a resume runs the model's calls of those ids.
// A session changed outside agentctl must not show one call and run another.
describe('a paused session that shows one call and holds another', () => {
  async function paused(): Promise<{ dir: string; file: string }> {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': [
        'kind: agent',
        'name: a',
        'model: offline/auto',
        'tools: [greet, mark]',
        '---',
        'kind: tool',
        'name: greet',
        'description: says hi',
        'parameters: { type: object, properties: {} }',
        'command: { argv: [echo, hi] }',
        'needs_approval: true',
        '---',
        'kind: tool',
        'name: mark',
        'description: leaves a mark',
        'parameters: { type: object, properties: {} }',
        'command: { argv: [touch, marked] }',
        'needs_approval: true',
        '',
      ].join('\n'),
    });
    const run = await agentctl(['run', 'a', 'go', '--session', 'p1'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('auto_0_0  greet({})');
    return { dir, file: join(dir, '.agentctl/sessions/p1.jsonl') };
  }

  // The model's first call becomes `mark` under greet's id: approving "greet" would run `mark`.
  function swapped(text: string): string {
    return text
      .split('\n')
      .map((line) => {
        if (!line) return line;
        const record = JSON.parse(line) as {
          events?: { type: string; message?: { toolCalls?: { name: string }[] } }[];
        };
        for (const event of record.events ?? []) {
          const calls = event.type === 'message' ? event.message?.toolCalls : undefined;
          if (calls?.[0]) calls[0].name = 'mark';
        }
        return JSON.stringify(record);
      })
      .join('\n');
  }

  it('run --approve refuses it: exit 1, the calls named, nothing runs, the file unchanged', async () => {
    const { dir, file } = await paused();
    const damaged = swapped(await readFile(file, 'utf8'));
    await writeFile(file, damaged);
    const run = await agentctl(
      ['run', 'a', '--session', 'p1', '--approve', 'auto_0_0', '--deny', 'auto_0_1'],
      {
        cwd: dir,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "agentctl: session p1 cannot be resumed: the call auto_0_0 waiting for a decision is greet({}), but the model's call auto_0_0 is mark({}) (the session was changed outside agentctl)",
    );
    expect(run.stderr).toMatch(
      /start a new session, or remove this one with `(agentctl|node \S+) sessions rm p1`/,
    );
    expect(existsSync(join(dir, 'marked'))).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });

  it('sessions import refuses such an export: exit 1, nothing imported', async () => {
    const { dir } = await paused();
    const exported = await agentctl(['sessions', 'export', 'p1'], { cwd: dir });
    const file = JSON.parse(exported.stdout) as {
      session: { id: string; events: { type: string; message?: { toolCalls?: { name: string }[] } }[] };
    };
    file.session.id = 'p2';
    for (const event of file.session.events) {
      const calls = event.type === 'message' ? event.message?.toolCalls : undefined;
      if (calls?.[0]) calls[0].name = 'mark';
    }
    const path = join(dir, 'p2.json');
    await writeFile(path, JSON.stringify(file));
    const imported = await agentctl(['sessions', 'import', path], { cwd: dir });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      "export: session p2: the call auto_0_0 waiting for a decision is greet({}), but the model's call auto_0_0 is mark({})",
    );
    expect(existsSync(join(dir, '.agentctl/sessions/p2.jsonl'))).toBe(false);
  });
});
