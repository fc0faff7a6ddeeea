import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, fixtureProject, parseNdjson, removeTempDirs } from './support/cli.js';

// test/fixtures/projects/lifecycle: `sleeper` calls `nap`, a command tool running `sleep 6`.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('lifecycle');
});
afterAll(removeTempDirs);

/** Runs `agentctl ARGS | head -1` in bash; returns what head printed and agentctl's own exit code. */
function throughHead(args: string[]): Promise<{ code: number; line: string; seconds: number }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${quoted} 2>/dev/null | head -1; exit "\${PIPESTATUS[0]}"`], {
      cwd: project,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let line = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      line += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, line, seconds: (performance.now() - started) / 1000 });
    });
  });
}

it('`run --json | head -1` cancels the run cleanly: exit 141, a valid session, no lock file', async () => {
  const { code, line, seconds } = await throughHead([
    'run',
    'sleeper',
    'take a nap',
    '--json',
    '--session',
    'piped',
  ]);
  expect(parseNdjson(line)).toEqual([expect.objectContaining({ type: 'run_start' })]);
  expect(code).toBe(141);
  // The six-second tool was not waited for.
  expect(seconds).toBeLessThan(6);

  const show = await agentctl(['sessions', 'show', 'piped', '--json'], { cwd: project });
  expect(show.code, show.stderr).toBe(0);
  const events = JSON.parse(show.stdout).session.events as Array<Record<string, unknown>>;
  expect(events.map((e) => e.type)).toContain('run_start');
  expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'ABORTED' });
  expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
  expect(events.some((e) => e.type === 'tool_result' && e.name === 'nap')).toBe(false);
  expect(
    readdirSync(join(project, '.agentctl/sessions')).filter(
      (f) => f.includes('.lock') || f.endsWith('.lease'),
    ),
  ).toEqual([]);

  const next = await agentctl(['run', 'sleeper', 'awake?', '--session', 'piped', '--model', 'offline/echo'], {
    cwd: project,
  });
  expect(next.code, next.stderr).toBe(0);
  expect(next.stdout).toContain('awake?');
});

it('a reader of stderr that goes away silences it only: the run finishes and its session is whole', async () => {
  const child = spawn(
    process.execPath,
    [BIN, 'run', 'desk', 'refund A-17', '--approve-all', '--session', 'muted'],
    {
      cwd: project,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Gone before agentctl has started: each of its lines of progress meets a closed pipe (EPIPE).
  child.stderr.destroy();
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  expect(stdout).toContain('billing refunded A-17');

  const show = await agentctl(['sessions', 'show', 'muted', '--json'], { cwd: project });
  expect(show.code, show.stderr).toBe(0);
  const events = JSON.parse(show.stdout).session.events as Array<Record<string, unknown>>;
  expect(events.find((e) => e.type === 'tool_result' && e.name === 'refund')).toBeDefined();
  expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  expect(
    readdirSync(join(project, '.agentctl/sessions')).filter(
      (f) => f.startsWith('muted') && (f.includes('.lock') || f.endsWith('.lease')),
    ),
  ).toEqual([]);
});

it('a prompt on stdin past 32 MiB is refused before anything is stored (exit 2), not an internal error', async () => {
  const { code, stderr } = await agentctl(['run', 'prep', '--session', 'flood', '--model', 'offline/echo'], {
    cwd: project,
    input: 'a'.repeat(32 * 1024 * 1024 + 1),
  });
  expect(code, stderr).toBe(2);
  expect(stderr).toContain('agentctl: the prompt on stdin is larger than 32 MiB, the most `run` takes');
  expect(existsSync(join(project, '.agentctl/sessions/flood.jsonl'))).toBe(false);
});
