import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyTool } from '@agentctl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell } from '../../src/toolbox/shell.js';
import { simpleCommands } from '../../src/toolbox/simple-commands.js';

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

  it('name what they do not see through', () => {
    // Documented limits: a variable, eval, a nested shell, a program that runs others.
    for (const line of [
      'a=rm; $a -rf x',
      'rm${IFS}-rf x',
      'eval "r""m -rf x"',
      "sh -c 'rm -rf x'",
      'echo x | xargs rm -rf',
    ]) {
      expect(
        simpleCommands(line).some((part) => /^rm /.test(part)),
        line,
      ).toBe(false);
    }
  });
});
