import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { parseYaml, schemaValidator } from './support/schema-tools.js';

// Read-only commands look at the repository's example project, from a folder outside it.
let elsewhere: string;
beforeAll(async () => {
  elsewhere = await tempDir();
});
afterAll(removeTempDirs);

describe.concurrent('agentctl list, tree, schema', () => {
  it('list --json holds every example agent with its file and description', async () => {
    const { code, stdout } = await agentctl(['-C', REPO, 'list', '--json'], { cwd: elsewhere });
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{
      name: string;
      type: string;
      description: string;
      file: string;
    }>;
    expect(rows.find((r) => r.name === 'hello')).toEqual({
      name: 'hello',
      type: 'llm',
      description: 'Says hello back; runs offline with no key.',
      file: 'agents/hello.yaml',
      inline: false,
    });
    for (const name of ['greeter', 'support', 'toolsmith']) expect(rows.map((r) => r.name)).toContain(name);
    expect(rows.map((r) => r.name)).toEqual([...rows.map((r) => r.name)].sort());
  });

  it('list prints one line per agent', async () => {
    const { code, stdout } = await agentctl(['--project', REPO, 'list'], { cwd: elsewhere });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^hello +Says hello back; runs offline with no key\.$/m);
  });

  it('tree shows toolsmith with its model and both tools', async () => {
    const [text, json] = await Promise.all([
      agentctl(['-C', REPO, 'tree', 'toolsmith'], { cwd: elsewhere }),
      agentctl(['-C', REPO, 'tree', 'toolsmith', '--json'], { cwd: elsewhere }),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('toolsmith (offline/auto)\n├─ ⚙ module: ./tools/word-count.ts\n└─ ⚙ shout\n');
    expect(JSON.parse(json.stdout)).toEqual({
      name: 'toolsmith',
      type: 'llm',
      model: 'offline/auto',
      tools: ['module: ./tools/word-count.ts', 'shout'],
      subAgents: [],
    });
  });

  it('tree of an unknown agent exits 2 and names the agents', async () => {
    const { code, stderr } = await agentctl(['-C', REPO, 'tree', 'nobody'], { cwd: elsewhere });
    expect(code).toBe(2);
    expect(stderr).toContain('no agent named "nobody"');
    expect(stderr).toContain('toolsmith');
  });

  it('schema agent prints a JSON Schema that accepts an example agent and rejects a typo', async () => {
    const { code, stdout } = await agentctl(['schema', 'agent'], { cwd: elsewhere });
    expect(code).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    // The agent's fields sit behind a local $ref.
    const local = /^#\/\$defs\/(\w+)$/.exec(schema.$ref ?? '')?.[1];
    const properties = (local ? schema.$defs[local] : schema).properties;
    expect(Object.keys(properties)).toEqual(
      expect.arrayContaining(['kind', 'name', 'model', 'instruction', 'tools', 'sub_agents']),
    );
    // The printed schema is self-contained: it validates with no sibling schema files.
    const validate = schemaValidator(schema, []);
    const hello = parseYaml(readFileSync(join(REPO, 'agents/hello.yaml'), 'utf8'));
    expect(validate(hello), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...hello, instructions: 'typo' })).toBe(false);
  });

  it('schema with no kind prints the whole format; an unknown kind exits 2', async () => {
    const [all, bad] = await Promise.all([
      agentctl(['schema'], { cwd: elsewhere }),
      agentctl(['schema', 'widget'], { cwd: elsewhere }),
    ]);
    expect(all.code).toBe(0);
    // The entry schema as written, under its stable URL, with every kind it dispatches to
    // embedded under $defs (their relative ids resolve against that URL).
    const { $defs, ...entry } = JSON.parse(all.stdout);
    expect(entry).toEqual({
      ...JSON.parse(readFileSync(join(REPO, 'schemas/agentctl.schema.json'), 'utf8')),
      $id: 'https://agentctl.dev/schemas/agentctl.schema.json',
    });
    expect(Object.keys($defs).sort()).toEqual([
      'agent.schema.json',
      'common.schema.json',
      'memory.schema.json',
      'middleware.schema.json',
      'model.schema.json',
      'plugins.schema.json',
      'project.schema.json',
      'schedule.schema.json',
      'test.schema.json',
      'tool.schema.json',
      'toolset.schema.json',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown kind "widget"');
  });

  it('exits 2 on bad usage and 0 on --help', async () => {
    const [unknown, missing, folder, help] = await Promise.all([
      agentctl(['frobnicate'], { cwd: elsewhere }),
      agentctl(['run'], { cwd: elsewhere }),
      agentctl(['-C', join(elsewhere, 'no-such-folder'), 'validate'], { cwd: elsewhere }),
      agentctl(['--help'], { cwd: elsewhere }),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'agent'");
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('no such project folder');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('validate');
  });

  it('with no command prints the help on stderr and exits 2; `help` and `help COMMAND` exit 0', async () => {
    const [bare, help, helpRun] = await Promise.all([
      agentctl([], { cwd: elsewhere }),
      agentctl(['help'], { cwd: elsewhere }),
      agentctl(['help', 'run'], { cwd: elsewhere }),
    ]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage: agentctl [options] [command]');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: agentctl [options] [command]');
    expect(helpRun.code).toBe(0);
    expect(helpRun.stdout).toContain('Usage: agentctl run [options] <agent> [prompt]');
  });
});

describe('agentctl init and sessions across processes', () => {
  let project: string;
  beforeAll(async () => {
    project = join(await tempDir(), 'my project');
  });

  it('scaffolds a project that validates and lists its agent', async () => {
    const init = await agentctl(['init', project], { cwd: elsewhere });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('created a project in');
    for (const file of ['agentctl.yaml', 'agents/assistant.yaml', '.gitignore'])
      expect(existsSync(join(project, file)), file).toBe(true);
    const [validate, list] = await Promise.all([
      agentctl(['-C', project, 'validate', '--strict'], { cwd: elsewhere }),
      agentctl(['-C', project, 'list', '--json'], { cwd: elsewhere }),
    ]);
    expect(validate.stdout).toContain('no problems');
    expect(validate.code).toBe(0);
    expect(JSON.parse(list.stdout).map((r: { name: string }) => r.name)).toEqual(['assistant']);
  });

  it('refuses a folder that is not empty without --force, and keeps its files', async () => {
    const full = await tempDir();
    await writeFile(join(full, 'notes.txt'), 'mine');
    const refused = await agentctl(['init', full], { cwd: elsewhere });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not empty; use --force');
    expect(existsSync(join(full, 'agentctl.yaml'))).toBe(false);
    const forced = await agentctl(['init', full, '--force'], { cwd: elsewhere });
    expect(forced.code).toBe(0);
    expect(existsSync(join(full, 'agentctl.yaml'))).toBe(true);
    expect(readFileSync(join(full, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('continues a session in a second process and shows both turns', async () => {
    const first = await agentctl(
      ['-C', project, 'run', 'assistant', 'first question', '--session', 'S', '--json'],
      {
        cwd: elsewhere,
      },
    );
    expect(first.code, first.stderr).toBe(0);
    const second = await agentctl(
      ['-C', project, 'run', 'assistant', 'second question', '--session', 'S', '--json'],
      { cwd: elsewhere },
    );
    expect(second.code, second.stderr).toBe(0);
    // The second process sent the first conversation to the model along with the new message.
    const inputTokens = (stdout: string) =>
      (stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((e) => e.type === 'usage')?.usage.inputTokens ?? 0) as number;
    expect(inputTokens(second.stdout)).toBeGreaterThan(inputTokens(first.stdout));

    const [json, text, list] = await Promise.all([
      agentctl(['-C', project, 'sessions', 'show', 'S', '--json'], { cwd: elsewhere }),
      agentctl(['-C', project, 'sessions', 'show', 'S'], { cwd: elsewhere }),
      agentctl(['-C', project, 'sessions', 'list', '--json'], { cwd: elsewhere }),
    ]);
    expect(json.code).toBe(0);
    const events = JSON.parse(json.stdout).session.events as Array<{
      type: string;
      message?: { role: string; content: string };
    }>;
    expect(
      events.filter((e) => e.type === 'message' && e.message?.role === 'user').map((e) => e.message!.content),
    ).toEqual(['first question', 'second question']);
    expect(events.filter((e) => e.type === 'run_start')).toHaveLength(2);
    expect(text.stdout).toMatch(/user: first question[\s\S]*user: second question/);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ id: 'S', agent: 'assistant', paused: false }),
    ]);
    // Kept in the project given with -C, not where the command ran.
    expect(existsSync(join(project, '.agentctl', 'sessions'))).toBe(true);
    expect(existsSync(join(elsewhere, '.agentctl'))).toBe(false);
  });

  it('exports, removes and imports a session', async () => {
    const file = join(elsewhere, 'S.json');
    const exported = await agentctl(['-C', project, 'sessions', 'export', 'S', file], { cwd: elsewhere });
    expect(exported.code, exported.stderr).toBe(0);
    const removed = await agentctl(['-C', project, 'sessions', 'rm', 'S'], { cwd: elsewhere });
    expect(removed.code).toBe(0);
    const gone = await agentctl(['-C', project, 'sessions', 'show', 'S'], { cwd: elsewhere });
    expect(gone.code).toBe(1);
    const imported = await agentctl(['-C', project, 'sessions', 'import', file, '--json'], {
      cwd: elsewhere,
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ id: 'S' });
    const back = await agentctl(['-C', project, 'sessions', 'show', 'S'], { cwd: elsewhere });
    expect(back.stdout).toMatch(/user: first question[\s\S]*user: second question/);
  });

  it('export to a folder or under a file is bad usage naming what is in the way; import of a missing file says so', async () => {
    const file = join(elsewhere, 'S.json');
    await writeFile(file, '{}');
    const [folder, underFile, missing] = await Promise.all([
      agentctl(['-C', project, 'sessions', 'export', 'S', '.'], { cwd: elsewhere }),
      agentctl(['-C', project, 'sessions', 'export', 'S', 'S.json/again.json'], { cwd: elsewhere }),
      agentctl(['-C', project, 'sessions', 'import', 'nothing.json'], { cwd: elsewhere }),
    ]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(
      `agentctl: sessions export: ${elsewhere} is a folder; give the path of a file\n`,
    );
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toBe(
      `agentctl: sessions export: ${file} is not a folder; give the path of a file\n`,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('agentctl: cannot read nothing.json: no such file\n');
  });
});

describe('a file where the default sessions folder goes', () => {
  it('is one line naming it with exit 1 for run and sessions, not an internal error', async () => {
    const project = await tempDir();
    await mkdir(join(project, 'agents'));
    await writeFile(join(project, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(join(project, 'agents/a.yaml'), 'kind: agent\nname: a\nmodel: offline/echo\n');
    await writeFile(join(project, '.agentctl'), 'a stray file\n');
    const line = `agentctl: cannot keep sessions in ${join(project, '.agentctl/sessions')}: ${join(project, '.agentctl')} is a file, not a folder\n`;
    for (const args of [
      ['run', 'a', 'hi'],
      ['sessions', 'list'],
    ]) {
      const result = await agentctl(['-C', project, ...args], { cwd: elsewhere });
      expect(result.stderr).toBe(line);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(1);
    }
  });
});
