import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, tempProject } from './support/cli.js';
import { waitFor } from './support/wait-for.js';

afterAll(removeTempDirs);

// In `dev` and `run --watch`, module tools and middleware run in a worker per version: one that
// never yields cannot hold the main thread, but it holds that worker for good, and every later call
// of the version's modules would wait behind it (a middleware, which has no timeout, for ever).
const project = () =>
  tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/a.yaml': `kind: agent
name: mw
model: offline/echo
middleware: [spin]
---
kind: middleware
name: spin
module: ../mw/spin.js
---
kind: agent
name: tool
model: offline/auto
tools: [spin]
---
kind: tool
name: spin
module: { path: ../tools/spin.js }
timeout: 1s
`,
    'mw/spin.js': `export default function spin(action, next) { if (action.type === 'model_call') for (;;) {} return next(); }\n`,
    'tools/spin.js': `export default { name: 'spin', description: 'loops', execute: () => { for (;;) {} } };\n`,
  });

function watch(dir: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'run', ...args, '--watch'], {
    cwd: dir,
    env: cliEnv({ AGENTCTL_MODULE_LOAD_LIMIT_MS: '1500' }),
    stdio: 'pipe',
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve(code);
    }),
  );
  const ended = (n: number) => output.split('── run on generation 1 ended').length - 1 >= n;
  return { child, exited, ended, output: () => output };
}

describe('run --watch with module code that never yields', () => {
  it('ends a run held by a middleware, naming it, and still answers Ctrl-C', async () => {
    const dir = await project();
    const run = watch(dir, ['mw', 'go']);
    await waitFor(() => run.ended(1), 'the run ended', 20_000);
    expect(run.output()).toContain(
      'error [TIMEOUT]: middleware `default` of mw/spin.js during model_call held its module worker 1.5 s without yielding',
    );
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
  });

  it("fails a later call of the version's modules at once, saying why, instead of queueing it", async () => {
    const dir = await project();
    const run = watch(dir, ['tool']);
    run.child.stdin.write('first\n');
    await waitFor(() => run.ended(1), 'the first run ended', 20_000);
    expect(run.output()).toContain('tool spin timed out after 1000 ms');
    run.child.stdin.write('second\n');
    await waitFor(() => run.ended(2), 'the second run ended', 20_000);
    expect(run.output()).toContain(
      'tool `spin` of tools/spin.js held its module worker 1.5 s without yielding',
    );
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
  });
});
