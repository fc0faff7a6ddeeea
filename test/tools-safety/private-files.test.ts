import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../support/cli.js';
import { probeProject, resultsByCall, runMain, scriptedTurns } from './probe-project.js';

// The file tools' default root is the project, which holds `.env` (the keys the models use) and
// `.agentctl/` (every session, tool results included). Scrubbing only catches values used as
// secrets, so the file tools keep away from both, by name or through a link, unless the agent's
// configuration says `allow_private: true`.

afterAll(removeTempDirs);

const PRIVATE = (path: string) =>
  `Tool ${path.split(':')[0]} failed: path "${path.split(':')[1]}" is private: .env files (secrets) and the .agentctl folder (sessions) are kept from the file tools unless the agent's configuration sets allow_private: true`;

const CALLS = `tool_calls:
      - { id: env, name: read_file, arguments: { path: .env } }
      - { id: upper, name: read_file, arguments: { path: .Env.local } }
      - { id: link, name: read_file, arguments: { path: docs/link.txt } }
      - { id: find, name: find_files, arguments: { pattern: ".env*" } }
      - { id: grep, name: grep, arguments: { pattern: hunter2, glob: "**/{.env,link.txt}" } }
      - { id: grepin, name: grep, arguments: { pattern: hunter2, path: .agentctl } }
      - { id: list, name: list_dir, arguments: { path: .agentctl/archive } }
      - { id: write, name: write_file, arguments: { path: .env.local, content: "OPENAI_BASE_URL=http://evil" } }
      - { id: notes, name: read_file, arguments: { path: docs/notes.md } }`;

async function project(options: string): Promise<string> {
  const dir = await probeProject({
    '.env': 'SOME_TOKEN=hunter2\n',
    '.Env.local': 'SOME_TOKEN=hunter2\n',
    '.agentctl/archive/old.json': '{"said":"hunter2"}\n',
    'docs/notes.md': 'notes\n',
    'agents/main.yaml': scriptedTurns(
      `[{ builtin: filesystem, options: { approve_writes: false${options} } }]`,
      [CALLS, 'text: done'],
    ),
  });
  await symlink('../.env', join(dir, 'docs/link.txt'));
  return dir;
}

describe.concurrent('the file tools and private files', () => {
  it('refuse .env files and .agentctl, by name or through a link, with an error the model reads', async () => {
    const dir = await project('');
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({
      env: PRIVATE('read_file:.env'),
      upper: PRIVATE('read_file:.Env.local'),
      link: PRIVATE('read_file:docs/link.txt'),
      find: '[no file matches]',
      grep: '[no match]',
      grepin: PRIVATE('grep:.agentctl'),
      list: PRIVATE('list_dir:.agentctl/archive'),
      write: PRIVATE('write_file:.env.local'),
      notes: 'notes\n',
    });
    await expect(readFile(join(dir, '.env.local'), 'utf8')).rejects.toThrow('ENOENT');
  });

  it('allow_private: true lets them through', async () => {
    const dir = await project(', allow_private: true');
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    const results = resultsByCall(run.events);
    expect(results.find).toBe('.env');
    expect(results.list).toBe('old.json (19 bytes)');
    expect(results.grep).toContain('.env:1: SOME_TOKEN=hunter2');
    expect(results.write).toBe('wrote 27 bytes to .env.local');
  });
});
