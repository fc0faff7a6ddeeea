import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, removeTempDirs, tempDir } from './support/cli.js';

const run = promisify(execFile);
afterAll(removeTempDirs);

describe('agentctl started in a folder that was deleted', () => {
  it('says so in one line with exit 2, not with a stack trace', async () => {
    const dir = join(await tempDir(), 'gone');
    // The shell enters the folder, then it is removed under it: what a branch switch does to a terminal.
    const script = `mkdir -p "$1" && cd "$1" && rm -rf "$1" && exec "$2" "$3" run assistant hello`;
    const outcome = await run('sh', ['-c', script, 'sh', dir, process.execPath, BIN]).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe(
      'agentctl: the current folder no longer exists (deleted or moved): cd into one that does\n',
    );
  });
});
