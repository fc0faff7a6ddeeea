import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, removeTempDirs, tempProject } from './support/cli.js';
import { startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

// A module middleware runs on the main thread, around every action of a run: one that never
// yields holds the thread every timer and Ctrl-C's handler need, as a looping tool does. Its limit
// is the module load limit, lowered here to 1.5 s.
const LIMIT = { AGENTCTL_MODULE_LOAD_LIMIT_MS: '1500' };

// `spin` loops on `model_call` before calling next(); `late` loops after next() answered;
// `pass` only calls next(); `slow` waits 2.5 s on a timer (yielding) before next().
const MIDDLEWARE = {
  'mw/spin.js': `export default function spin(action, next) { if (action.type === 'model_call') for (;;) {} return next(); }\n`,
  'mw/late.js': `export default async function late(action, next) {
  const out = await next();
  if (action.type === 'model_call') for (;;) {}
  return out;
}\n`,
  'mw/pass.js': `export default function pass(action, next) { return next(); }\n`,
  'mw/slow.js': `export default async function slow(action, next) {
  if (action.type === 'model_call') await new Promise((r) => setTimeout(r, 2500));
  return next();
}\n`,
  'mw/busy.js': `export default function busy(action, next) {
  if (action.type === 'model_call') { const end = Date.now() + 2500; while (Date.now() < end) {} }
  return next();
}\n`,
  'mw/guard.js': `export default function guard(action, next) { if (action.type === 'tool_call') for (;;) {} return next(); }\n`,
  'mw/stuck.js': `export default function stuck(action, next) {
  return action.type === 'model_call' ? new Promise(() => {}) : next();
}\n`,
  'mw/held.js': `export default function held(action, next) {
  if (action.type !== 'model_call') return next();
  setInterval(() => {}, 1000);
  return new Promise(() => {});
}\n`,
  'tools/spin.js': `export default { name: 'spin_tool', description: 'loops', execute: () => { for (;;) {} } };\n`,
};

function agent(name: string, middleware: string, tools = ''): string {
  return `kind: agent
name: ${name}
model: ${tools ? 'caller' : 'offline/echo'}
middleware: [${middleware}]
${tools ? `tools: [${tools}]\n` : ''}`;
}

const project = () =>
  tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/middleware.yaml': ['spin', 'late', 'pass', 'slow', 'stuck', 'held', 'guard', 'busy']
      .map((name) => `kind: middleware\nname: ${name}\nmodule: ../mw/${name}.js\n`)
      .join('---\n'),
    'agents/agents.yaml': [
      agent('spinner', 'spin'),
      agent('late', 'late'),
      agent('slow', 'slow'),
      agent('wrapped', 'pass', 'spin_tool'),
      agent('stuck', 'stuck'),
      agent('guarded', 'guard', 'spin_tool'),
      agent('busy', 'busy'),
      agent('held', 'held'),
    ].join('---\n'),
    'agents/more.yaml': `kind: tool
name: spin_tool
module: { path: ../tools/spin.js }
timeout: 1s
---
kind: model
name: caller
provider: offline
model: script
script: [{ tool_calls: [{ id: c1, name: spin_tool, arguments: {} }] }, { text: done }]
`,
    'tests/spinner.yaml':
      'kind: test\nname: spins\nagent: spinner\nturns:\n  - user: go\n    expect: { output: { contains: go } }\n',
    ...MIDDLEWARE,
  });

const run = (dir: string, name: string) =>
  agentctl(['run', name, 'go'], { cwd: dir, env: LIMIT, timeoutMs: 20_000 });

describe('a module middleware that never yields the main thread', () => {
  it('ends `run`, naming the middleware and the action, with no stack trace; the prompt is kept', async () => {
    const dir = await project();
    const result = await agentctl(['run', 'spinner', 'go', '--session', 's1'], {
      cwd: dir,
      env: LIMIT,
      timeoutMs: 20_000,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /agentctl: middleware `spin` has held the main thread 1\.\d s without yielding during model_call \(an endless loop, or long synchronous work\?\); stopped\n/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Written before the first model call: the process was killed, the prompt was not lost.
    const show = await agentctl(['sessions', 'show', 's1'], { cwd: dir });
    expect(show.stdout).toContain('\nuser: go\n');
  });

  it('is caught in the code it runs after next() answered', async () => {
    const dir = await project();
    const result = await run(dir, 'late');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('agentctl: middleware `late` has held the main thread');
  });

  it('ends `agentctl test` the same way rather than hang CI', async () => {
    const dir = await project();
    const result = await agentctl(['test', 'spins'], { cwd: dir, env: LIMIT, timeoutMs: 20_000 });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('agentctl: middleware `spin` has held the main thread');
  });

  it('leaves a middleware that waits (yielding) past the limit alone', async () => {
    const dir = await project();
    const result = await run(dir, 'slow');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('go');
    expect(result.stderr).not.toContain('agentctl: ');
  });

  it('blames the tool, not a middleware waiting in next() around it', async () => {
    const dir = await project();
    const result = await run(dir, 'wrapped');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('agentctl: tool `spin_tool` is past its 1 s timeout');
    expect(result.stderr).not.toContain('middleware');
  });
});

type Stored = { type: string; code?: string; message?: string };

describe('a module middleware that holds the main thread under `serve`', () => {
  it('is warned about, and the server answers once it returns', async () => {
    const dir = await project();
    const server = await startServe(dir, [], LIMIT);
    const response = await fetch(`${server.url}/agents/busy/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'go', stream: false }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { output: string }).output).toContain('go');
    expect(server.stderr()).toMatch(
      /agentctl: warning: middleware `busy` has held the main thread 1\.\d s without yielding during model_call .*: everything else in this process waits for it\n/,
    );
  });
});

describe('a module middleware that loops while it handles a tool call', () => {
  it("is named beside the tool once the tool's timeout is past", async () => {
    const dir = await project();
    const result = await run(dir, 'guarded');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'agentctl: tool `spin_tool` (in middleware `guard`) is past its 1 s timeout and has held the main thread',
    );
  });
});

describe('a module middleware that never settles', () => {
  it('fails `run` with exit 1 naming it, not exit 0 in silence, and the session ends', async () => {
    const dir = await project();
    const result = await agentctl(['run', 'stuck', 'go', '--session', 's1'], { cwd: dir, timeoutMs: 20_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'the run can never finish: middleware `stuck` during model_call waits on a promise nothing can settle',
    );
    const show = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    const events = (JSON.parse(show.stdout) as { session: { events: Stored[] } }).session.events;
    expect(events.map((e) => e.type)).toEqual(['run_start', 'message', 'agent_start', 'error', 'run_end']);
  });

  it('does not keep Ctrl-C from cancelling the run', async () => {
    const dir = await project();
    const child = spawn(process.execPath, [BIN, 'run', 'held', 'go'], {
      cwd: dir,
      env: cliEnv(),
      stdio: 'pipe',
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => stderr.includes('session '), 'the run started', 15_000);
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(killer);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('cancelled by the user (Ctrl-C)');
  });
});
