import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// `boom` throws from its own code on the action named by BOOM_AT; `pass` only calls next().
const project = () =>
  tempProject({
    'agentctl.yaml': 'kind: project\n',
    'mw/boom.js': `export default function boom(action, next) {
  if (action.type === process.env.BOOM_AT) { const missing = undefined; return missing.field; }
  return next();
}\n`,
    'mw/pass.js': 'export default function pass(action, next) { return next(); }\n',
    'agents/middleware.yaml': `kind: middleware
name: boom
module: ../mw/boom.js
---
kind: middleware
name: pass
module: ../mw/pass.js
`,
    'agents/a.yaml': `kind: agent
name: a
model: offline/echo
middleware: [boom]
---
kind: model
name: failing
provider: offline
model: script
script:
  - error: { message: "the provider is overloaded", code: PROVIDER_ERROR }
---
kind: agent
name: b
model: failing
middleware: [pass]
`,
  });

function errorEvent(stdout: string): Record<string, unknown> {
  const events = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const error = events.find((event) => event.type === 'error');
  expect(error).toBeDefined();
  return error as Record<string, unknown>;
}

describe('a module middleware that throws', () => {
  it('around a model call is named with its file as the project’s error, not the provider’s', async () => {
    const dir = await project();
    const run = await agentctl(['run', 'a', 'hi', '--json'], { cwd: dir, env: { BOOM_AT: 'model_call' } });
    expect(run.code).toBe(1);
    const error = errorEvent(run.stdout);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe(
      "middleware `boom` (mw/boom.js) failed during model_call: Cannot read properties of undefined (reading 'field')",
    );
    expect((error.context as Record<string, unknown>).blame).toBe('config');
  });

  it('after the run is a failed run (exit 1), not a bug of agentctl (exit 3)', async () => {
    const dir = await project();
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env: { BOOM_AT: 'loop_end' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "error [CONFIG_ERROR]: middleware `boom` (mw/boom.js) failed during loop_end: Cannot read properties of undefined (reading 'field')",
    );
    expect(run.stderr).not.toContain('--debug');
  });

  it('leaves what came up through next() as it was: the provider’s failure stays the provider’s', async () => {
    const dir = await project();
    const run = await agentctl(['run', 'b', 'hi', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const error = errorEvent(run.stdout);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toBe('the provider is overloaded');
  });
});
