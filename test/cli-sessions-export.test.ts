import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, removeTempDirs, tempProject } from './support/cli.js';

// A session of about 1.5 MB (an echo of a 300 KB prompt): its export takes a few chunks of a megabyte.
let dir: string;
beforeAll(async () => {
  dir = await tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/e.yaml': 'kind: agent\nname: e\nmodel: offline/echo\n',
  });
  const run = await agentctl(['run', 'e', '--session', 'big'], { cwd: dir, input: 'a'.repeat(300_000) });
  expect(run.code, run.stderr).toBe(0);
});
afterAll(removeTempDirs);

/** Runs `script` in bash in the project, `$AGENTCTL` standing for the CLI; its exit code and stderr. */
function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: dir,
      env: cliEnv({ AGENTCTL: `'${process.execPath}' '${BIN}'` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('sessions export to a file', () => {
  it('that fails midway (a file size limit) leaves the file as it was, and no temp file', async () => {
    await writeFile(join(dir, 'out.json'), 'the export before\n');
    // ulimit -f counts blocks of 1024 bytes: the first chunk already goes past it.
    const failed = await bash('ulimit -f 100; eval "$AGENTCTL sessions export big out.json"');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^agentctl: cannot write out\.json: .*EFBIG.* \(the file is larger than this system allows it to be \(see ulimit -f\)\)\n$/,
    );
    expect(await readFile(join(dir, 'out.json'), 'utf8')).toBe('the export before\n');
    expect(readdirSync(dir).filter((f) => f.startsWith('out.json'))).toEqual(['out.json']);

    const done = await agentctl(['sessions', 'export', 'big', 'out.json'], { cwd: dir });
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'out.json'), 'utf8'))).toMatchObject({
      session: { id: 'big' },
    });
    expect(readdirSync(dir).filter((f) => f.startsWith('out.json'))).toEqual(['out.json']);
  });
});

describe('sessions export and show --json to a reader that goes away', () => {
  it.each([['export big'], ['show big --json']])(
    '%s | head stops at once: exit 141, nothing on stderr',
    async (args) => {
      const { code, stdout, stderr } = await bash(
        `eval "$AGENTCTL sessions ${args}" | head -c 10; exit "\${PIPESTATUS[0]}"`,
      );
      expect(stdout).toBe('{\n  "forma');
      expect(stderr).toBe('');
      expect(code).toBe(141);
    },
  );
});
