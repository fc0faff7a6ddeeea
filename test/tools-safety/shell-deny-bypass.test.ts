import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeProject, runMain, scriptedAgent, toolResults } from './probe-project.js';

// Under --approve-all the shell built-in's deny patterns are the only guard. Each line here runs
// `touch` (denied) in a way the shell builds or another program hides; none may create its file.
const BYPASSES = [
  'a=touch; $a made-1',
  'eval "$(echo touch made-2)"',
  "sh -c 'touch made-3'",
  'env FOO=1 touch made-4',
  'nohup touch made-5',
  'timeout 5 touch made-6',
  'command touch made-7',
  'echo made-8 | xargs touch',
  'find . -maxdepth 0 -exec touch made-9 \\;',
  'alias t=touch\nt made-10',
  '. ./script.sh',
  'f() { touch made-12; }; f',
  '`echo touch` made-13',
  '$(echo touch) made-14',
  "bash -c 'touch made-15'",
  'exec touch made-16',
  'nice -n 1 touch made-17',
  'x=made-18; touch $x',
];

describe('shell deny through the CLI', () => {
  it('refuses every line that would run a denied program, and runs the rest', async () => {
    const calls = [
      ...BYPASSES.map((command) => ({ name: 'shell', arguments: { command } })),
      { name: 'shell', arguments: { command: 'echo ran > ran.txt' } },
    ];
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: shell, options: { deny: ["touch *"] } }]', calls),
      'script.sh': 'touch made-11\n',
    });
    const { code, events, stderr } = await runMain(dir, ['--approve-all']);
    expect(code, stderr).toBe(0);
    const results = toolResults(events) as Array<{ callId: string; isError?: boolean; content: string }>;
    expect(results).toHaveLength(BYPASSES.length + 1);
    const result = (i: number) => results.find((r) => r.callId === `call_${i + 1}`);
    const refused =
      /matches the deny pattern "touch \*"; it was not run|cannot check the command against the deny rules: .*; it was not run/;
    const through = BYPASSES.filter((_, i) => !result(i)?.isError || !refused.test(result(i)?.content ?? ''));
    expect(through).toEqual([]);
    const made = BYPASSES.map((_, i) => `made-${i + 1}`).filter((file) => existsSync(join(dir, file)));
    expect(made).toEqual([]);
    // The same run does run a line no pattern denies.
    expect(result(BYPASSES.length)?.isError).toBe(false);
    expect(existsSync(join(dir, 'ran.txt'))).toBe(true);
  });
});

describe("shell deny and a program's options before its subcommand", () => {
  it('refuses `git -C . init` and the like under a `git init*` deny, and runs other git commands', async () => {
    const hidden = [
      'git -C . init made-1',
      'git -c init.defaultBranch=main init made-2',
      'git --no-pager init made-3',
      'git -C . -c init.defaultBranch=main init made-4',
      'git --git-dir=made-5 init',
      '/usr/bin/env git -C . init made-6',
    ];
    const calls = [...hidden, 'git -C . --version'].map((command) => ({
      name: 'shell',
      arguments: { command },
    }));
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: shell, options: { deny: ["git init*"] } }]', calls),
    });
    const { code, events, stderr } = await runMain(dir, ['--approve-all']);
    expect(code, stderr).toBe(0);
    const results = toolResults(events) as Array<{ callId: string; isError?: boolean; content: string }>;
    const result = (i: number) => results.find((r) => r.callId === `call_${i + 1}`);
    const through = hidden.filter(
      (_, i) => !/matches the deny pattern "git init\*"/.test(result(i)?.content ?? ''),
    );
    expect(through).toEqual([]);
    expect(hidden.map((_, i) => `made-${i + 1}`).filter((name) => existsSync(join(dir, name)))).toEqual([]);
    expect(existsSync(join(dir, '.git'))).toBe(false);
    // Options before another subcommand are no reason to refuse it.
    expect(result(hidden.length)).toMatchObject({ isError: false });
    expect(result(hidden.length)?.content).toContain('git version');
  });
});
