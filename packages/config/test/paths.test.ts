import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileProject, createRegistry, loadProject } from '../src/index.js';
import { readRegularFile } from '../src/paths.js';
import { project } from './helpers.js';

const hello = 'kind: agent\nname: a\nmodel: offline/echo\n';

describe('the one path resolver', () => {
  it('never hangs on a FIFO as .env or instruction_file, in validate or in run', async () => {
    const root = await project({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': `${hello}instruction_file: ./fifo.md\n`,
    });
    execFileSync('mkfifo', [join(root, '.env'), join(root, 'agents/fifo.md')]);
    const loaded = await loadProject({ project: root, env: {} });
    expect(loaded.diagnostics.map((d) => [d.rule, d.message])).toEqual([
      ['file-path', 'instruction file `./fifo.md` is not a regular file'],
    ]);
    expect(() => readRegularFile(join(root, '.env'))).toThrow('is not a regular file');
    const clean = await project({ 'agentctl.yaml': 'kind: project\n', 'agents/a.yaml': hello });
    execFileSync('mkfifo', [join(clean, '.env')]);
    const compiled = await compileProject(await loadProject({ project: clean, env: {} }), { env: {} });
    expect(compiled.diagnostics).toEqual([]);
    expect(compiled.runtime?.agents.has('a')).toBe(true);
  });

  it('does not read .env linked to /dev/zero, and caps what it reads', async () => {
    const root = await project({ 'agentctl.yaml': 'kind: project\n', 'agents/a.yaml': hello });
    symlinkSync('/dev/zero', join(root, '.env'));
    const before = process.memoryUsage().rss;
    const compiled = await compileProject(await loadProject({ project: root, env: {} }), { env: {} });
    expect(compiled.runtime?.agents.has('a')).toBe(true);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    const big = await project({ 'big.txt': 'x'.repeat(5 * 1024 * 1024) });
    expect(() => readRegularFile(join(big, 'big.txt'))).toThrow('larger than');
  });

  it('run does not load an env_file outside the project', async () => {
    const outside = await project({ 'secret.env': 'AGENTCTL_TEST_SECRET=leaked\n' });
    const root = await project({
      'agentctl.yaml': `kind: project\nenv_file: ${join(outside, 'secret.env')}\n`,
      'agents/a.yaml': `${hello}instruction: "x \${AGENTCTL_TEST_SECRET:-unset}"\n`,
    });
    const loaded = await loadProject({ project: root, env: {} });
    expect(loaded.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^env file `.*secret\.env` is outside the project folder$/),
    ]);
    const { env } = await import('../src/env/project-env.js').then(async (m) => ({
      env: await m.projectEnv(root, loaded.specs, {}),
    }));
    expect(env.AGENTCTL_TEST_SECRET).toBeUndefined();
  });

  it('resolves a memory path relative to its file in validate and run, and never writes through a symlink out', async () => {
    const outside = await project({ 'keep.txt': '' });
    const root = await project({
      'agentctl.yaml': 'kind: project\ndefaults: { memory: store }\n',
      'agents/a.yaml': hello,
      'agents/memory/m.yaml': 'kind: memory\nname: store\nbackend: file\npath: ./sessions\n',
    });
    const registry = createRegistry().registerMemory('file', async (spec, ctx) =>
      (await import('../../store-file/src/index.js')).fileMemoryBackend(spec, ctx),
    );
    const loaded = await loadProject({ project: root, env: {}, registry });
    expect(loaded.diagnostics).toEqual([]);
    const compiled = await compileProject(loaded, { env: {}, registry });
    expect(compiled.diagnostics).toEqual([]);
    await compiled.runtime?.agents.get('a')?.run('hi').result;
    await compiled.runtime?.dispose();
    expect(existsSync(join(root, 'agents/memory/sessions'))).toBe(true);
    expect(existsSync(join(root, 'sessions'))).toBe(false);

    symlinkSync(outside, join(root, 'agents/memory/out'));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      join(root, 'agents/memory/m.yaml'),
      'kind: memory\nname: store\nbackend: file\npath: ./out/s\n',
    );
    const escaped = await loadProject({ project: root, env: {}, registry });
    expect(escaped.diagnostics.map((d) => d.message)).toEqual([
      'memory path `./out/s` is outside the project folder',
    ]);
    const run = await compileProject({ ...escaped, diagnostics: [] }, { env: {}, registry });
    expect(run.diagnostics.map((d) => d.message)).toContain('path `./out/s` is outside the project folder');
    expect(readdirSync(outside)).toEqual(['keep.txt']);
  });

  it('keeps include globs inside the project: no .., no absolute pattern, no symlinked file out', async () => {
    const outside = await project({ 'agents/x.yaml': 'kind: agent\nname: intruder\n' });
    const root = await project({
      'agentctl.yaml': `kind: project\ninclude: ["agents/*.yaml", "../${outside.split('/').pop()}/agents/*.yaml", "${'*'.repeat(70_000)}"]\n`,
      'agents/a.yaml': hello,
    });
    symlinkSync(join(outside, 'agents/x.yaml'), join(root, 'agents/link.yaml'));
    const loaded = await loadProject({ project: root, env: {} });
    expect([...loaded.specs.agent.keys()]).toEqual(['a']);
    expect(loaded.diagnostics.map((d) => [d.rule, d.severity]).sort()).toEqual([
      ['glob-pattern', 'error'],
      ['glob-pattern', 'error'],
      ['project-file', 'warning'],
    ]);
    expect(loaded.diagnostics.find((d) => d.rule === 'project-file')?.message).toBe(
      'agents/link.yaml is a symlink to outside the project: not read',
    );
    expect(loaded.diagnostics.every((d) => d.message.length < 2048)).toBe(true);
  });
});
