import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

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
    'agents/middleware.yaml': ['spin', 'late', 'pass', 'slow']
      .map((name) => `kind: middleware\nname: ${name}\nmodule: ../mw/${name}.js\n`)
      .join('---\n'),
    'agents/agents.yaml': [
      agent('spinner', 'spin'),
      agent('late', 'late'),
      agent('slow', 'slow'),
      agent('wrapped', 'pass', 'spin_tool'),
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
  it('ends `run`, naming the middleware and the action, with no stack trace', async () => {
    const dir = await project();
    const result = await run(dir, 'spinner');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /agentctl: middleware `spin` has held the main thread 1\.\d s without yielding during model_call \(an endless loop, or long synchronous work\?\); stopped\n/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
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
