import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyTool } from '@agentctl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseShellLine } from '../../src/toolbox/analyse-shell-line.js';
import { shell } from '../../src/toolbox/shell.js';

// A deny pattern of the shell built-in is matched on every simple command of the line, as the
// shell would read its words. These lines all run `rm -rf x` (or `git push`) in sh; each must be
// refused by `rm *` (or `git push*`) without running.
const BYPASSES = [
  'rm -rf x',
  '(rm -rf x)',
  'true && (rm -rf x)',
  'if true; then rm -rf x; fi',
  'for f in x; do rm -rf $f; done',
  'while false; do :; done; { rm -rf x; }',
  "r''m -rf x",
  'r""m -rf x',
  '\\rm -rf x',
  "$'rm' -rf x",
  '"rm" -rf x',
  '/bin/rm -rf x',
  'X=1 rm -rf x',
  'X="a b" rm -rf x',
  "X='a b' Y=2 rm -rf x",
  'env X=1 rm -rf x',
  'command rm -rf x',
  'nohup rm -rf x',
  '! rm -rf x',
  'echo $(rm -rf x)',
  'echo `rm -rf x`',
  'cat <(rm -rf x)',
  'ls | rm -rf x',
  'ls || rm -rf x',
  'sleep 1 & rm -rf x',
  'ls\nrm -rf x',
  '>out rm -rf x',
  '2> out rm\t-rf   x',
  'case a in a) rm -rf x;; esac',
  'git  push origin main',
  "g'i't push --force",
  // Wrappers whose program is written out: unwrapped, and the program checked.
  'env -i X=1 rm -rf x',
  'env -u HOME -- rm -rf x',
  'nice -n 5 rm -rf x',
  'nohup nice rm -rf x',
  'timeout 5 rm -rf x',
  'timeout -s KILL 5 rm -rf x',
  'command -p rm -rf x',
  'exec rm -rf x',
  'echo x | xargs rm -rf',
  'echo x | xargs -n1 -I{} rm -rf {}',
  'find . -name x -exec rm -rf {} +',
  'find . -name x -execdir rm -rf {} \\;',
  "sh -c 'rm -rf x'",
  "bash -ec 'echo; rm -rf x'",
  'dash -c "sh -c \'rm -rf x\'"',
  "eval 'rm -rf x'",
  "eval r''m -rf x",
  "trap 'rm -rf x' EXIT",
  'f() { rm -rf x; }; f',
  'echo "$(rm -rf x)"',
  'echo ${X:-$(rm -rf x)}',
  'sudo -u root rm -rf x',
  'busybox rm -rf x',
  'coproc rm -rf x',
  'coproc X { rm -rf x; }',
  'function f { rm -rf x; }; f',
  'trap -- "rm -rf x" EXIT',
  'cat <<EOF\n$(rm -rf x)\nEOF',
  'cat <<-EOF\n\t`rm -rf x`\n\tEOF',
  "cat <<'EOF' >f\nhi\nEOF\nrm -rf x",
  'time -p rm -rf x',
  'env - rm -rf x',
];

// Lines whose program the text cannot tell: refused whenever there are deny patterns.
const UNKNOWN = [
  'a=rm; $a -rf x',
  'rm${IFS}-rf x',
  '$(echo rm) -rf x',
  '`echo rm` -rf x',
  'eval "$CMD"',
  'eval $(echo rm -rf x)',
  'sh -c "$X"',
  'sh ./script.sh',
  'echo rm -rf x | sh',
  'bash < script',
  '. ./script',
  'source script',
  "alias x='rm'; x -rf x",
  "$'\\x72m' -rf x",
  '/bin/r? -rf x',
  '/bin/r[m] -rf x',
  '{rm,-rf,x}',
  'env -S "rm -rf x"',
  'sudo -s rm -rf x',
  'xargs $P -rf x',
  'f() { "$@"; }; f rm -rf x',
  'git $SUB origin',
  'git pu$X origin',
  'hash -p /bin/rm ls; ls -rf x',
  'flock /tmp/l rm -rf x',
  'mapfile -C "rm -rf x" -c 1 a < f',
  'BASH_ENV=./x.sh bash -c true',
  "export PS4='$(rm -rf x)'; set -x",
];

let root: string;
let tool: AnyTool;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'shell-deny-'));
  tool = shell({ root, deny: ['rm *', 'git push*'], allow: ['echo *'] });
});
afterAll(() => rm(root, { recursive: true, force: true }));

const run = (command: string) =>
  tool.execute({ command }, { signal: new AbortController().signal } as never) as Promise<{
    stdout: string;
  }>;

describe('shell deny patterns', () => {
  it.each(BYPASSES)('refuse %j without running it', async (command) => {
    await expect(run(command)).rejects.toThrow(
      /matches the deny pattern "(rm \*|git push\*)"; it was not run/,
    );
    // Refused when run, so nobody is asked about it first.
    expect((tool.needsApproval as (args: unknown) => boolean)({ command })).toBe(false);
  });

  it('leave other commands alone, quoted operators included', async () => {
    expect(await run('echo rm')).toMatchObject({ stdout: 'rm\n' });
    expect(await run('echo form -rf')).toMatchObject({ stdout: 'form -rf\n' });
  });

  it.each(UNKNOWN)('refuse %j, whose program is only known when it runs', async (command) => {
    await expect(run(command)).rejects.toThrow(
      /^cannot check the command against the deny rules: .+; it was not run/,
    );
    expect((tool.needsApproval as (args: unknown) => boolean)({ command })).toBe(false);
  });

  it('read a long line in one pass', () => {
    // Each `[` once scanned the rest of the line for its `]`: 200 000 of them took half a minute.
    const analysis = analyseShellLine(`echo ${'['.repeat(200_000)}`);
    expect(analysis.commands).toHaveLength(1);
    expect(analysis.commands[0].words[1].dynamic).toBe(false);
    expect(analyseShellLine('ls [ab]c').commands[0].words[1].dynamic).toBe(true);
  });

  it('leave lines alone whose built words cannot make a denied command', async () => {
    expect(await run('echo $HOME')).toMatchObject({ stdout: '\n' });
    expect(await run('git log $X --oneline 2>/dev/null; echo ok')).toMatchObject({ stdout: 'ok\n' });
    expect(await run('command -v sh >/dev/null && echo found')).toMatchObject({ stdout: 'found\n' });
    expect(await run("sh -c 'echo inner'")).toMatchObject({ stdout: 'inner\n' });
    expect(await run('for f in a b; do echo "$f"; done')).toMatchObject({ stdout: 'a\nb\n' });
    // A here-document's body is text: only its substitutions run, and none when its delimiter is quoted.
    expect(await run("cat <<'EOF'\nrm -rf x\n$(rm -rf x) $HOME\nEOF")).toMatchObject({
      stdout: 'rm -rf x\n$(rm -rf x) $HOME\n',
    });
    expect(await run('X=1; cat <<EOF\n$X rm -rf $(echo x)\nEOF')).toMatchObject({ stdout: '1 rm -rf x\n' });
  });
});

describe('shell allow patterns', () => {
  const allowing = shell({ root: '/', allow: ['ls*', 'nohup *', 'find *', 'env *', 'sh -c *'] });
  const asks = (command: string) => (allowing.needsApproval as (args: unknown) => boolean)({ command });

  it('let a plain matching command run unasked', () => {
    expect(asks('ls -la')).toBe(false);
    expect(asks('nohup ls -la')).toBe(false);
    expect(asks('sh -c ls')).toBe(false);
  });

  it('ask about a wrapper whose program no pattern allows, or that runs code no text shows', () => {
    for (const command of [
      'nohup rm -rf x',
      'find . -exec rm {} +',
      'env X=1 rm x',
      "sh -c 'rm x'",
      'sh -c id',
      'eval ls',
    ])
      expect(asks(command), command).toBe(true);
  });
});
