import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { htmlText, OutputLimitError, runProcess } from '../src/index.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

// A zombie (killed, never reaped by an init that does not reap) counts as gone.
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

// Blocks the event loop (on purpose) until `done`, for at most 20 s.
function busyUntil(done: () => boolean, what: string): void {
  const end = Date.now() + 20_000;
  while (!done()) if (Date.now() > end) throw new Error(`waited 20 s for ${what}`);
}

// SIGKILL is sent at once but takes a moment to land.
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe('runProcess', () => {
  it('returns at the exit of the program and kills what it left in its group', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'run-process-'));
    dirs.push(cwd);
    const started = Date.now();
    const out = await runProcess(
      ['sh', '-c', 'sleep 30 & echo $! > bg.pid; echo out; echo err >&2; exit 3'],
      {
        cwd,
        env,
        maxOutputBytes: 1000,
        signal: new AbortController().signal,
      },
    );
    expect(out).toEqual({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await gone(Number(await readFile(join(cwd, 'bg.pid'), 'utf8')))).toBe(true);
  });

  it('kills the group on abort and rejects with the reason', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'run-process-'));
    dirs.push(cwd);
    const controller = new AbortController();
    const running = runProcess(['sh', '-c', 'sleep 31 & echo $! > bg.pid; sleep 32'], {
      cwd,
      env,
      maxOutputBytes: 1000,
      signal: controller.signal,
    });
    for (let i = 0; i < 100; i++) {
      if (await readFile(join(cwd, 'bg.pid'), 'utf8').catch(() => '')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
    expect(await gone(Number(await readFile(join(cwd, 'bg.pid'), 'utf8')))).toBe(true);
  });

  it('keeps the output of a program that exits while the event loop is busy', async () => {
    // What a busy server meets: a tool exits while the loop is blocked; its exit is reaped in the
    // same pass as another child's, whose handler then keeps the loop busy past the drain time, so
    // the next pass starts with the drain timer before the tool's output was read.
    const cwd = await mkdtemp(join(tmpdir(), 'run-process-'));
    dirs.push(cwd);
    const pidFile = join(cwd, 'echo.pid');
    const echoed = runProcess(
      [
        'sh',
        '-c',
        'while [ ! -e go ]; do sleep 0.01; done; echo hello; echo $$ > pid.tmp; mv pid.tmp echo.pid',
      ],
      { cwd, env, maxOutputBytes: 1000, signal: new AbortController().signal },
    );
    const other = spawn('sh', ['-c', 'echo tick'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // Its output and its exit then arrive in one pass, the output first (libuv runs signals last).
    busyUntil(() => !alive(other.pid as number), 'the other child to exit');
    other.stdout.once('data', () => {
      writeFileSync(join(cwd, 'go'), '');
      busyUntil(() => existsSync(pidFile) && !alive(Number(readFileSync(pidFile, 'utf8'))), 'echo to exit');
    });
    other.once('exit', () => {
      const end = Date.now() + 300;
      busyUntil(() => Date.now() > end, 'the busy work');
    });
    expect(await echoed).toMatchObject({ code: 0, stdout: 'hello\n' });
  });

  it('stops a program over the output limit', async () => {
    await expect(
      runProcess(['yes'], { cwd: tmpdir(), env, maxOutputBytes: 100, signal: new AbortController().signal }),
    ).rejects.toBeInstanceOf(OutputLimitError);
  });

  it('reports a program that cannot start', async () => {
    await expect(
      runProcess(['no-such-program-xyz'], {
        cwd: tmpdir(),
        env,
        maxOutputBytes: 100,
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow('cannot run no-such-program-xyz: ENOENT');
  });
});

describe('htmlText', () => {
  it('keeps the title and the readable text, drops scripts, styles and comments, decodes entities', () => {
    expect(
      htmlText(
        '<html><head><title>T</title><script>x()</script></head><body><!-- c --><style>a{}</style><h1>A &amp; B</h1><p>one<br>two &#x263A; &lt;3</p></body></html>',
      ),
    ).toBe('T\n\nA & B\n\none\ntwo ☺ <3');
  });
});
