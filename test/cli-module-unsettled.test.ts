import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

afterAll(removeTempDirs);

// A project whose agent `a` uses the module tool `name`, in tools/NAME.js, whose top level is `top`.
async function projectWithModule(name: string, top: string): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'agents'), { recursive: true });
  await mkdir(join(dir, 'tools'), { recursive: true });
  await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
  await writeFile(
    join(dir, 'agents/a.yaml'),
    `kind: agent\nname: a\nmodel: offline/echo\ntools: [${name}]\n---\nkind: tool\nname: ${name}\nmodule: { path: ../tools/${name}.js }\n`,
  );
  await writeFile(
    join(dir, `tools/${name}.js`),
    `${top}\nexport default { name: '${name}', description: 'slow to load', execute: () => 'x' };\n`,
  );
  return dir;
}

// A module whose top-level `await` waits on a promise nothing settles leaves Node's event loop
// empty while the command waits for the import: Node then exits 0 with nothing done and nothing said.
const projectWithStuckModule = () => projectWithModule('stuck', 'await new Promise(() => {});');

describe('a module tool whose top-level await never settles', () => {
  it('fails `run` with exit 1 naming the module and the YAML that uses it, not exit 0 in silence', async () => {
    const dir = await projectWithStuckModule();
    const run = await agentctl(['run', 'a', 'hello'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /agents\/a\.yaml:8:\d+: error: tools\/stuck\.js never finished loading: a top-level `await` in it waits for a promise nothing can settle/,
    );
  });

  it('fails `serve` the same way instead of exiting 0 before it listens', async () => {
    const dir = await projectWithStuckModule();
    const serve = await agentctl(['serve', '--port', '0'], { cwd: dir });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('tools/stuck.js never finished loading');
  });
});

describe('a module tool whose top level loops forever', () => {
  const projectWithLoopingModule = () => projectWithModule('loop', 'while (true) {}');
  // The limit a module's loading gets, shortened from its 30 s default for the test.
  const env = { AGENTCTL_MODULE_LOAD_LIMIT_MS: '1500' };

  it('stops `run` at the load limit naming the module, instead of hanging', async () => {
    const dir = await projectWithLoopingModule();
    const started = performance.now();
    const run = await agentctl(['run', 'a', 'hello'], { cwd: dir, env, timeoutMs: 20_000 });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'agentctl: tools/loop.js never finished loading: its top-level code ran 1.5 s without yielding (an endless loop?); stopped',
    );
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('lets a module load for longer than the limit while it waits (its top level yields)', async () => {
    const dir = await projectWithModule('slow', 'await new Promise((resolve) => setTimeout(resolve, 2500));');
    const run = await agentctl(['run', 'a', 'hello'], { cwd: dir, env, timeoutMs: 20_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hello');
  });

  it('fails `validate` with exit 1 at the YAML that names the module', async () => {
    const dir = await projectWithLoopingModule();
    const validate = await agentctl(['validate'], { cwd: dir, env, timeoutMs: 20_000 });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(
      /agents\/a\.yaml:8:\d+: error: module \.\.\/tools\/loop\.js failed to load: it did not finish loading within 1\.5 s/,
    );
  });
});
