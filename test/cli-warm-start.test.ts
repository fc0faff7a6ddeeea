import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const RECORDER = fileURLToPath(new URL('./support/record-loads.mjs', import.meta.url));
const WORKERS = fileURLToPath(new URL('./support/record-workers.mjs', import.meta.url));

// How many worker threads a command started.
async function workersOf(root: string, args: string[]) {
  const log = join(await tempDir('agentctl-workers-'), 'workers.txt');
  const result = await agentctl(args, {
    cwd: root,
    env: { NODE_OPTIONS: `--import=${WORKERS}`, RECORD_WORKERS: log },
  });
  let workers = 0;
  try {
    workers = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    // No worker wrote the file.
  }
  return { result, workers };
}

// What a command loaded: the options validator's compiler (ajv's code generator) and the YAML
// parser (a loaded file of the CLI's that defines its `LineCounter` class).
async function loads(root: string, args: string[]) {
  const log = join(await tempDir('agentctl-loads-'), 'loads.txt');
  const result = await agentctl(args, {
    cwd: root,
    env: { NODE_OPTIONS: `--import=${RECORDER}`, RECORD_LOADS: log },
  });
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const files = [...new Set(lines.map((line) => line.slice(4)))];
  const esm = files.filter((f) => f.startsWith('file:')).map((f) => fileURLToPath(f));
  return {
    result,
    ajvCompiler: files.some((f) => /[\\/]ajv[\\/]dist[\\/]compile[\\/]/.test(f)),
    yamlParser: esm.some((f) =>
      /\b(class LineCounter\b|LineCounter = class\b)/.test(readFileSync(f, 'utf8')),
    ),
  };
}

describe('a run of an unchanged project', () => {
  it("starts no thread for a run with no module code: model calls and agentctl's tools are not watched", async () => {
    const root = await tempProject({
      'agentctl.yaml': 'kind: project\nname: threads\n',
      // offline/auto calls each tool once: a built-in one here.
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/auto\ntools: [{ builtin: current_time }]\n',
      'agents/b.yaml':
        'kind: agent\nname: b\nmodel: offline/auto\ntools: [count]\n---\nkind: tool\nname: count\ndescription: counts\nmodule: { path: ../tools/count.js }\n',
      'tools/count.js':
        "export default { name: 'count', description: 'counts', parameters: { type: 'object', properties: {} }, execute: () => '3' };\n",
    });
    await agentctl(['run', 'a', 'warm up'], { cwd: root });
    const plain = await workersOf(root, ['run', 'a', 'hi']);
    expect(plain.result.code, plain.result.stderr).toBe(0);
    expect(plain.result.stdout).toContain('current_time');
    expect(plain.workers).toBe(0);
    // The recorder sees the watchdog's thread where module code runs (its import and its calls).
    const withModule = await workersOf(root, ['run', 'b', 'hi']);
    expect(withModule.result.code, withModule.result.stderr).toBe(0);
    expect(withModule.workers).toBeGreaterThan(0);
  });

  it('loads neither a schema compiler for plugin options nor a YAML parser for offline scripts', async () => {
    // Agent `b` uses neither: what `run b` loads for them is the check of the whole project.
    const root = await tempProject({
      'agentctl.yaml': 'kind: project\nname: warm\n',
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: m\ntools:\n  - { builtin: shell, options: { allow: ["ls*"] } }\n---\nkind: model\nname: m\nprovider: offline\nmodel: script\nscript: ../scripts/turns.yaml\n',
      'agents/b.yaml': 'kind: agent\nname: b\nmodel: offline/echo\n',
      // A plugin whose options schema has no validator generated at build time (the built-ins' have).
      'agents/c.yaml':
        'kind: agent\nname: c\nmodel: gpt\n---\nkind: model\nname: gpt\nprovider: openai\nmodel: gpt-4o\noptions: { organization: acme }\n',
      'scripts/turns.yaml': '- text: from the script\n',
    });
    rmSync(join(root, '.agentctl'), { recursive: true, force: true });
    const cold = await loads(root, ['run', 'b', 'hi']);
    expect(cold.result.code, cold.result.stderr).toBe(0);
    // The detector sees both when they are loaded: the first run checks the options and the script.
    expect(cold).toMatchObject({ ajvCompiler: true, yamlParser: true });
    const warm = await loads(root, ['run', 'b', 'hi']);
    expect(warm.result.code, warm.result.stderr).toBe(0);
    expect(warm.result.stdout).toBe(cold.result.stdout);
    expect(warm).toMatchObject({ ajvCompiler: false, yamlParser: false });
    // The agent that plays the script still reads it, warm: its model needs the turns.
    const played = await loads(root, ['run', 'a', 'hi']);
    expect(played.result.stdout).toContain('from the script');
    expect(played.ajvCompiler).toBe(false);
  });

  it("compiles no validator for a built-in plugin's options even on the first run (generated at build time)", async () => {
    const root = await tempProject({
      'agentctl.yaml': 'kind: project\nname: fresh\n',
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - { builtin: shell, options: { allow: ["ls*"] } }\n  - { builtin: read_file, options: { max_bytes: 1000 } }\nmiddleware: [careful]\n---\nkind: middleware\nname: careful\nbuiltin: retry\noptions: { max_attempts: 2 }\n',
    });
    rmSync(join(root, '.agentctl'), { recursive: true, force: true });
    const cold = await loads(root, ['run', 'a', 'hi']);
    expect(cold.result.code, cold.result.stderr).toBe(0);
    expect(cold).toMatchObject({ ajvCompiler: false, yamlParser: true });
    // And the generated validators say what a compiled one would.
    const bad = await tempProject({
      'agentctl.yaml': 'kind: project\nname: bad\n',
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - { builtin: shell, options: { allow: 3 } }\n---\nkind: middleware\nname: careful\nbuiltin: retry\noptions: { max_attempts: 0 }\n',
    });
    const validate = await loads(bad, ['validate']);
    expect(validate.result.code).toBe(1);
    expect(validate.ajvCompiler).toBe(false);
    expect(validate.result.stdout).toContain(
      'agents/a.yaml:5:41: error: built-in shell: option `allow` must be a list, not 3 [plugin-options]\n' +
        'agents/a.yaml:10:26: error: retry: option `max_attempts` must be >= 1 [plugin-options]\n',
    );
  });
});
