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
  `Tool ${path.split(':')[0]} failed: path "${path.split(':')[1]}" is private: secrets (.env files, .git, credentials and private keys) and the .agentctl folder (sessions) are kept from the file tools unless the agent's configuration sets allow_private: true`;

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

// Credentials a project folder often holds besides `.env`: git's remote URL with a token, the
// package managers' login files, SSH and cloud keys. Each file holds the word hunter2.
const SECRETS: Record<string, string> = {
  '.git/config': '[remote "origin"]\n  url = https://user:hunter2@example.com/r.git\n',
  '.npmrc': '//registry.example.com/:_authToken=hunter2\n',
  '.netrc': 'machine example.com login me password hunter2\n',
  '.pypirc': '[pypi]\npassword = hunter2\n',
  'deploy/.ssh/config': 'IdentityFile hunter2\n',
  'keys/id_ed25519': 'hunter2\n',
  'keys/id_rsa.old': 'hunter2\n',
  'certs/server.PEM': 'hunter2\n',
  '.aws/credentials': 'aws_secret_access_key = hunter2\n',
  'home/.docker/config.json': '{"auths":{"x":{"auth":"hunter2"}}}\n',
};

describe.concurrent('the file tools and credentials', () => {
  it('refuse every credential file, by any path, for every tool, and list them without contents', async () => {
    const names = Object.keys(SECRETS);
    const reads = [
      ...names.map((file, i) => ({ id: `read${i}`, name: 'read_file', arguments: { path: file } })),
      // Case, `..` and links: the same files by other names. The greps' regex keeps this YAML out.
      { id: 'case', name: 'read_file', arguments: { path: '.GIT/config' } },
      { id: 'dots', name: 'read_file', arguments: { path: 'docs/../.git/./config' } },
      { id: 'link', name: 'read_file', arguments: { path: 'docs/remote.txt' } },
      { id: 'linkdir', name: 'read_file', arguments: { path: 'docs/dotgit/config' } },
      {
        id: 'hook',
        name: 'write_file',
        arguments: { path: '.git/hooks/pre-commit', content: 'touch pwned' },
      },
      { id: 'npmrc', name: 'write_file', arguments: { path: 'sub/.NPMRC', content: 'registry=http://evil' } },
      { id: 'edit', name: 'edit_file', arguments: { path: '.netrc', old_text: 'me', new_text: 'you' } },
      { id: 'listgit', name: 'list_dir', arguments: { path: '.git' } },
      { id: 'list', name: 'list_dir', arguments: { path: '.' } },
      { id: 'find', name: 'find_files', arguments: { pattern: '**/*' } },
      { id: 'finddot', name: 'find_files', arguments: { pattern: '{.*,**/.*,**/.*/**,.*/**}' } },
      { id: 'grep', name: 'grep', arguments: { pattern: 'hunt[e]r2', regex: true } },
      {
        id: 'grepdot',
        name: 'grep',
        arguments: { pattern: 'hunt[e]r2', regex: true, glob: '{.*,**/.*,**/.*/**,.*/**,**/*}' },
      },
    ];
    const files = Object.fromEntries(Object.entries(SECRETS));
    const dir = await probeProject({
      ...files,
      'docs/notes.md': 'notes\n',
      'agents/main.yaml': scriptedTurns('[{ builtin: filesystem, options: { approve_writes: false } }]', [
        `tool_calls: ${JSON.stringify(reads)}`,
        'text: done',
      ]),
    });
    await symlink('../.git/config', join(dir, 'docs/remote.txt'));
    await symlink('../.git', join(dir, 'docs/dotgit'));
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    const results = resultsByCall(run.events) as Record<string, string>;
    const refused = /is private: secrets/;
    for (const [i, file] of names.entries()) expect(results[`read${i}`], file).toMatch(refused);
    for (const id of ['case', 'dots', 'link', 'linkdir', 'hook', 'npmrc', 'edit', 'listgit'])
      expect(results[id], id).toMatch(refused);
    for (const id of ['find', 'finddot'])
      expect(results[id], id).not.toMatch(/\.git\/|npmrc|netrc|pypirc|id_|PEM|\.aws|\.ssh|\.docker/);
    expect(results.grep).toBe('[no match]');
    expect(results.grepdot).toBe('[no match]');
    expect(results.find).toContain('docs/notes.md');
    // list_dir names a private entry, marked, without its size.
    expect(results.list.split('\n')).toEqual(
      expect.arrayContaining([
        '.git/ (private)',
        '.npmrc (private)',
        '.aws/ (private)',
        'docs/',
        'agentctl.yaml (26 bytes)',
      ]),
    );
    expect(results.list).not.toMatch(/\.npmrc \(\d+ bytes\)/);
    await expect(readFile(join(dir, '.git/hooks/pre-commit'), 'utf8')).rejects.toThrow('ENOENT');
    await expect(readFile(join(dir, 'sub/.NPMRC'), 'utf8')).rejects.toThrow('ENOENT');
    expect(await readFile(join(dir, '.netrc'), 'utf8')).toContain('login me');
  });
});
