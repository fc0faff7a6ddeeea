import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';

afterAll(removeTempDirs);

describe('run AGENT blocks only on what AGENT reaches', () => {
  it('runs an agent while another agent, an unused model and a broken file have errors, printing them as warnings', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(
      join(dir, 'agents/ok.yaml'),
      'kind: agent\nname: ok\nmodel: offline/echo\n---\nkind: agent\nname: broken\nmodel: nope\ntools: [{ builtin: curent_time }]\n',
    );
    await writeFile(join(dir, 'agents/unused.yaml'), 'kind: model\nname: spare\nprovider: openia\n');
    await writeFile(join(dir, 'agents/syntax.yaml'), 'kind: agent\nname: [unclosed\n');
    const run = await agentctl(['run', '-C', dir, 'ok', 'hello there']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('hello there');
    expect(run.stderr).toContain('warning: model `nope` is not defined');
    expect(run.stderr).toContain('(not used by `ok`, so not blocking it)');
    expect(run.stderr).toMatch(/agents\/unused\.yaml:3:11: warning: provider `openia`/);
    expect(run.stderr).not.toMatch(/: error: /);
    const blocked = await agentctl(['run', '-C', dir, 'broken', 'hi']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/agents\/ok\.yaml:8:\d+: error: built-in tool `curent_time`/);
    const validated = await agentctl(['validate', '-C', dir]);
    expect(validated.code).toBe(1); // validate stays project-wide
  });

  it("blocks on errors inside the agent's own document, as validate does", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(
      join(dir, 'agents/a.yaml'),
      'kind: agent\nname: a\nmodel: offline/echo\ninstruction: hi\nmax_iterations: lots\n---\nkind: agent\nname: b\nmodel: offline/echo\ninstructions: hi\n',
    );
    const typed = await agentctl(['run', '-C', dir, 'a', 'hello']);
    expect(typed.code).toBe(1);
    expect(typed.stdout).toBe('');
    expect(typed.stderr).toMatch(/agents\/a\.yaml:5:17: error: `max_iterations` must be an integer/);
    const unknownKey = await agentctl(['run', '-C', dir, 'b', 'hello']);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stdout).toBe('');
    expect(unknownKey.stderr).toMatch(/agents\/a\.yaml:10:1: error: unknown key `instructions`/);
    // Each document's error is the other agent's warning, not its error.
    expect(typed.stderr).toMatch(
      /agents\/a\.yaml:10:1: warning: unknown key `instructions`.*not used by `a`/,
    );
  });

  it('reports wrongly shaped references in the agent it runs as errors (exit 1), not an internal error', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(
      join(dir, 'agents/a.yaml'),
      'kind: agent\nname: a\nmodel: offline/echo\ntools: [5, { agent: 7 }]\nsub_agents: [3]\nmiddleware: [7]\nmemory: [x]\n',
    );
    const run = await agentctl(['run', '-C', dir, 'a', 'hi']);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toMatch(/agents\/a\.yaml:4:9: error: `tools` is not valid/);
    expect(run.code).toBe(1);
  });

  it('blocks when a name AGENT reaches is defined twice, and not for a duplicate it does not reach', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    const model = (name: string) => `kind: model\nname: ${name}\nprovider: offline\nmodel: echo\n`;
    await writeFile(
      join(dir, 'agents/a.yaml'),
      `kind: agent\nname: a\nmodel: m\n---\n${model('m')}---\nkind: agent\nname: b\nmodel: offline/echo\n`,
    );
    await writeFile(
      join(dir, 'agents/again.yaml'),
      `kind: agent\nname: a\nmodel: offline/echo\n---\n${model('m')}---\n${model('spare')}---\n${model('spare')}`,
    );
    const run = await agentctl(['run', '-C', dir, 'a', 'hi']);
    expect(run.stderr).toMatch(
      /agents\/again\.yaml:2:7: error: agent `a` is already defined at agents\/a\.yaml:2:7/,
    );
    expect(run.stderr).toMatch(
      /agents\/again\.yaml:6:7: error: model `m` is already defined at agents\/a\.yaml:6:7/,
    );
    expect(run.stderr).toMatch(
      /agents\/again\.yaml:16:7: warning: model `spare` is already defined .* so not blocking it/,
    );
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
    const other = await agentctl(['run', '-C', dir, 'b', 'hi']);
    expect(other.stderr).toMatch(/agents\/again\.yaml:2:7: warning: agent `a` is already defined/);
    expect(other.stdout.trim()).toBe('hi');
    expect(other.code).toBe(0);
  });

  it('blocks on an agentctl.yaml that does not parse, as on any other error in it', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agents/a.yaml'), 'kind: agent\nname: a\nmodel: offline/echo\n');
    for (const [text, message] of [
      ['kind: project\nname: p\nname: q\n', 'agentctl.yaml:3:1: error: duplicate key'],
      ['kind: project\nname: [p\n', 'agentctl.yaml:2:7: error: this `[` is not closed'],
    ]) {
      await writeFile(join(dir, 'agentctl.yaml'), text);
      const run = await agentctl(['run', '-C', dir, 'a', 'hi']);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toContain('so not blocking it');
      expect(run.stdout).toBe('');
      expect(run.code).toBe(1);
    }
  });

  it('refuses a sessions folder that a file stands in the way of, before the run (exit 1, not an internal error)', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(join(dir, 'data'), 'a file\n');
    await writeFile(
      join(dir, 'agents/a.yaml'),
      'kind: agent\nname: a\nmodel: offline/echo\nmemory: m\n---\nkind: memory\nname: m\npath: ../data/sessions\n',
    );
    const message =
      'agents/a.yaml:8:7: error: memory path `../data/sessions` cannot be made: data is a file, not a folder';
    const validated = await agentctl(['validate', '-C', dir]);
    expect(validated.stdout).toContain(message);
    expect(validated.code).toBe(1);
    const run = await agentctl(['run', '-C', dir, 'a', 'hi']);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(1);
  });

  it("the repository's triage example answers any prompt through its script's fallback turn", async () => {
    const dir = await tempDir();
    for (const file of ['agentctl.yaml', 'agents/triage.yaml'])
      await cp(join(REPO, file), join(dir, file), { recursive: true });
    const hello = await agentctl(['run', '-C', dir, 'triage', 'hello']);
    expect(hello.code).toBe(0);
    expect(hello.stdout.trim()).toBe('I can route billing and technical questions.');
  });
});
