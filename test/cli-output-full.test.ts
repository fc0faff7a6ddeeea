import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, removeTempDirs, tempDir } from './support/cli.js';

afterAll(removeTempDirs);

// Stdout into /dev/full: every write fails with ENOSPC, as `> file` does on a full disk.
function withFullStdout(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: cliEnv(),
      stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const SAID =
  'agentctl: the output could not be written: ENOSPC: no space left on device, write (the disk is full: free some space and run it again)\n';

describe('stdout that cannot be written (a full disk under > file)', () => {
  it('fails list and run with exit 1 and one line, not a stack trace or exit 0', async () => {
    const dir = await tempDir();
    expect((await agentctl(['init', dir])).code).toBe(0);
    const list = await withFullStdout(['list'], dir);
    expect(list).toEqual({ code: 1, stderr: SAID });
    const run = await withFullStdout(['run', 'assistant', 'hello', '--json'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(SAID);
    expect(run.stderr).not.toMatch(/\n\s+at |Node\.js v/);
  });
});
