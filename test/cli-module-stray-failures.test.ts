import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs } from './support/cli.js';
import { probeProject, resultsByCall, runMain, scriptedTurns } from './tools-safety/probe-project.js';

afterAll(removeTempDirs);

// A module tool's code that fails where nothing awaits it (a timer's callback, a promise left
// unhandled) ended agentctl with a stack trace, the run cut off mid-call. It is that call's error.

const tool = (name: string, body: string) =>
  `export default { name: '${name}', description: 'misbehaves', execute: async () => { ${body} } };\n`;
const wait = 'await new Promise((resolve) => setTimeout(resolve, 200)); return "finished";';

describe('a module tool whose code fails outside the promise of its call', () => {
  it('fails that call, with the error, and the run goes on', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[rejects, throws, fine]', [
        'tool_calls: [{ id: r, name: rejects, arguments: {} }]',
        'tool_calls: [{ id: t, name: throws, arguments: {} }]',
        'tool_calls: [{ id: f, name: fine, arguments: {} }]',
        'text: done',
      ])}---
kind: tool
name: rejects
module: { path: ../tools/rejects.js }
---
kind: tool
name: throws
module: { path: ../tools/throws.js }
---
kind: tool
name: fine
module: { path: ../tools/fine.js }
`,
      'tools/rejects.js': tool('rejects', `Promise.reject(new Error('refused')); ${wait}`),
      'tools/throws.js': tool(
        'throws',
        `setTimeout(() => { throw new Error('boom in a timer'); }, 10); ${wait}`,
      ),
      'tools/fine.js': tool('fine', 'return "fine";'),
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const results = resultsByCall(run.events);
    expect(results.r).toMatch(
      /^Tool rejects failed: refused \(thrown by code of rejects that nothing awaited/,
    );
    expect(results.t).toMatch(
      /^Tool throws failed: boom in a timer \(thrown by code of throws that nothing awaited/,
    );
    expect(results.f).toBe('fine');
    expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done' });
  });

  it('says on stderr what failed after its call had ended, and the run goes on', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[late]', [
        'tool_calls: [{ id: l, name: late, arguments: {} }]',
        'text: done',
      ])}---
kind: tool
name: late
module: { path: ../tools/late.js }
`,
      'tools/late.js': tool(
        'late',
        `setTimeout(() => { throw new Error('late boom'); }, 50); return "returned";`,
      ),
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({ l: 'returned' });
    expect(run.stderr).toContain(
      'agentctl: warning: code of tool `late` failed after its call had ended (ignored): late boom',
    );
  });
});

// The same of a module middleware, before or after its `next()`: it crashed agentctl mid-run.
const middlewareAgent = (mw: string) => `${scriptedTurns('[fine]', [
  'tool_calls: [{ id: f, name: fine, arguments: {} }]',
  'text: done',
]).replace('tools: [fine]\n', `tools: [fine]\nmiddleware: [${mw}]\n`)}---
kind: tool
name: fine
module: { path: ../tools/fine.js }
---
kind: middleware
name: ${mw}
module: ../mw/${mw}.js
`;
const middleware = (during: string, before: string, after: string) =>
  `export default async function mw(action, next) {
  if (action.type !== '${during}') return next();
  ${before}
  const out = await next();
  ${after}
  return out;
}
`;

describe('a module middleware whose code fails outside the promise it returns', () => {
  const errorOf = (events: Array<Record<string, unknown>>) => events.find((e) => e.type === 'error');

  it('fails the run as its own CONFIG_ERROR, rejected before next(), and does not crash', async () => {
    const dir = await probeProject({
      'agents/main.yaml': middlewareAgent('refuses'),
      'tools/fine.js': tool('fine', 'return "fine";'),
      'mw/refuses.js': middleware(
        'model_call',
        "Promise.reject(new Error('refused early'));",
        wait.replace(' return "finished";', ''),
      ),
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(errorOf(run.events)).toMatchObject({
      code: 'CONFIG_ERROR',
      message:
        'middleware `refuses` (mw/refuses.js) failed during model_call: refused early (thrown by code of middleware `refuses` that nothing awaited: a callback, or a promise left unhandled)',
    });
    expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
  });

  it('fails the call it wraps when a timer it set after next() throws, and does not crash', async () => {
    const dir = await probeProject({
      'agents/main.yaml': middlewareAgent('timer'),
      'tools/fine.js': tool('fine', 'return "fine";'),
      'mw/timer.js': middleware(
        'tool_call',
        '',
        `setTimeout(() => { throw new Error('boom after next'); }, 10); ${wait.replace(' return "finished";', '')}`,
      ),
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // As an error its code throws during a tool call: the model is told, and the run goes on.
    expect(resultsByCall(run.events).f).toMatch(
      /^Tool fine failed: middleware `timer` \(mw\/timer\.js\) failed during tool_call: boom after next \(thrown by code of middleware `timer` that nothing awaited/,
    );
    expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done' });
  });

  it('says on stderr what failed after its action, the project secrets hidden, and the run goes on', async () => {
    const dir = await probeProject({
      '.env': 'BILLING_KEY=sk-billing-secret-0123456789\n',
      'agents/main.yaml': `${middlewareAgent('late')}---
kind: model
name: billing
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:9/v1
api_key: \${BILLING_KEY}
`,
      'tools/fine.js': tool('fine', 'return "fine";'),
      'mw/late.js': middleware(
        'tool_call',
        '',
        "setTimeout(() => { throw new Error('late with sk-billing-secret-0123456789'); }, 50);",
      ),
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({ f: 'fine' });
    expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done' });
    expect(run.stderr).toContain(
      'agentctl: warning: code of middleware `late` failed after its tool_call had ended (ignored): late with ***',
    );
    expect(run.stderr).not.toContain('sk-billing-secret');
  });
});

describe('agentctl test: a module middleware failing where nothing awaits it', () => {
  it('fails its own test, and the tests beside it pass', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: offline/echo
instruction: Answer.
middleware: [flaky]
---
kind: middleware
name: flaky
module: ../mw/flaky.js
`,
      'mw/flaky.js': `export default async function flaky(action, next) {
  if (action.type === 'model_call' && JSON.stringify(action.payload.request.messages).includes('boom')) {
    setTimeout(() => { throw new Error('stray boom'); }, 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return next();
}
`,
      'tests/t.yaml': `kind: test
name: boom
agent: main
turns:
  - user: boom
---
kind: test
name: calm
agent: main
turns:
  - user: calm
    expect: { output: { contains: calm } }
`,
    });
    const run = await agentctl(['test'], { cwd: dir, timeoutMs: 40_000 });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(
      'CONFIG_ERROR: middleware `flaky` (mw/flaky.js) failed during model_call: stray boom (thrown by code of middleware `flaky` that nothing awaited',
    );
    expect(run.stdout).toMatch(/✓ calm/);
    expect(run.stdout).toContain('2 test(s): 1 passed, 1 failed');
  });
});

describe("a module's top-level timer failing after the import", () => {
  it('is a warning of run on stderr and of validate at the module, the project secrets hidden in both', async () => {
    const dir = await probeProject({
      '.env': 'BILLING_KEY=sk-billing-secret-0123456789\n',
      'agents/main.yaml': `${scriptedTurns('[fine]', [
        'tool_calls: [{ id: f, name: fine, arguments: {} }]',
        'text: done',
      ])}---
kind: tool
name: fine
module: { path: ../tools/fine.js }
---
kind: model
name: billing
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:9/v1
api_key: \${BILLING_KEY}
`,
      'tools/fine.js': `setTimeout(() => { throw new Error('top-level boom sk-billing-secret-0123456789'); }, 0);
${tool('fine', `${wait.replace(' return "finished";', '')} return "fine";`)}`,
    });
    const warning =
      'code of the module tools/fine.js failed after it was imported (ignored): top-level boom ***';
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({ f: 'fine' });
    expect(run.stderr).toContain(`agentctl: warning: ${warning}`);
    expect(run.stderr).not.toContain('sk-billing-secret');
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toBe(
      `agents/main.yaml:17:17: warning: ${warning} [module-exports]\n0 errors, 1 warning\n`,
    );
    const strict = await agentctl(['validate', '--strict', '--format', 'json'], { cwd: dir });
    expect(strict.code).toBe(1);
    expect(strict.stdout).not.toContain('sk-billing-secret');
  });
});

describe("a promise a module's top-level code leaves rejected", () => {
  const reason = (path: string) =>
    `(thrown by code of the module ${path} that nothing awaited: a callback, or a promise left unhandled)`;

  it('fails the import of a tool module in validate and in run, naming the module, its secret hidden', async () => {
    const dir = await probeProject({
      '.env': 'BILLING_KEY=sk-billing-secret-0123456789\n',
      'agents/main.yaml': `${scriptedTurns('[fine]', ['text: done'])}---
kind: tool
name: fine
module: { path: ../tools/fine.js }
---
kind: model
name: billing
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:9/v1
api_key: \${BILLING_KEY}
`,
      'tools/fine.js': `Promise.reject(new Error('top-level rejection sk-billing-secret-0123456789'));
${tool('fine', 'return "fine";')}`,
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      `agents/main.yaml:16:17: error: module ../tools/fine.js failed to load: tools/fine.js:1:16: top-level rejection *** ${reason('tools/fine.js')} [module-exports]\n1 error, 0 warnings\n`,
    );
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `agents/main.yaml:16:9: error: top-level rejection *** ${reason('tools/fine.js')} [tool]`,
    );
    expect(run.stderr).not.toContain('sk-billing-secret');
  });

  it('fails the import of a middleware module in validate and in run, naming the module', async () => {
    const dir = await probeProject({
      'agents/main.yaml': middlewareAgent('refuses'),
      'tools/fine.js': tool('fine', 'return "fine";'),
      'mw/refuses.js': `Promise.reject(new Error('no middleware today'));\n${middleware('model_call', '', '')}`,
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      `error: module ../mw/refuses.js failed to load: mw/refuses.js:1:16: no middleware today ${reason('mw/refuses.js')} [module-exports]`,
    );
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no middleware today ${reason('mw/refuses.js')}`);
    expect(run.stderr).not.toContain('warning');
  });
});

describe("a module tool's needsApproval failing where nothing awaits it", () => {
  it('is a warning on stderr, and the call and the run go on', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[asks]', [
        'tool_calls: [{ id: a, name: asks, arguments: {} }]',
        'text: done',
      ])}---
kind: tool
name: asks
module: { path: ../tools/asks.js }
`,
      'tools/asks.js': `export default { name: 'asks', description: 'x',
  needsApproval: () => { setTimeout(() => { throw new Error('approval boom'); }, 0); return false; },
  execute: async () => { ${wait.replace(' return "finished";', '')} return 'asked'; } };
`,
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({ a: 'asked' });
    expect(run.stderr).toContain(
      'agentctl: warning: code of tool `asks` failed after its needsApproval had returned (ignored): approval boom',
    );
  });
});
