import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from './support/cli.js';
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
