import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { schemaValidator } from './support/schema-tools.js';

const require = createRequire(join(REPO, 'packages/config/package.json'));
const { parseAllDocuments } = require('yaml') as typeof import('yaml');

const TEMPLATES = {
  single: { agent: 'assistant', prompt: 'what time is it?' },
  team: { agent: 'triage', prompt: 'where is my invoice?' },
  pipeline: { agent: 'brief', prompt: 'local models' },
  mcp: { agent: 'librarian', prompt: 'what is in the notes?' },
} as const;

let elsewhere: string;
beforeAll(async () => {
  elsewhere = await tempDir();
});
afterAll(removeTempDirs);

/** Every `instruction` of the agents in a YAML file, inline sub-agents included. */
function instructions(text: string): string[] {
  const out: string[] = [];
  const visit = (agent: Record<string, unknown>) => {
    if (typeof agent.instruction === 'string') out.push(agent.instruction);
    for (const sub of (agent.sub_agents as unknown[] | undefined) ?? [])
      if (typeof sub === 'object' && sub !== null) visit(sub as Record<string, unknown>);
  };
  for (const doc of parseAllDocuments(text)) {
    const value = doc.toJS() as Record<string, unknown>;
    if (value.kind === 'agent') visit(value);
  }
  return out;
}

/** True when `system` is `template` with every `{{ ... }}` rendered to a non-empty text. */
function renderedFully(template: string, system: string): boolean {
  const escaped = template.split(/\{\{[^{}]*\}\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const match = new RegExp(`^${escaped.join('(.*?)')}$`, 's').exec(system);
  return match?.slice(1).every((value) => value.trim() !== '') ?? false;
}

describe.concurrent.each(Object.entries(TEMPLATES))(
  'agentctl init --template %s',
  (name, { agent, prompt }) => {
    it('writes a project that validates, runs offline, and renders every template', async () => {
      const project = join(elsewhere, name);
      const init = await agentctl(['init', project, '--template', name], { cwd: elsewhere });
      expect(init.code, init.stderr).toBe(0);
      // The printed next step is a command that works as printed (here: node and the script).
      expect(init.stdout).toContain(`run ${agent} "${prompt}"`);
      expect(init.stdout).toMatch(/npm i -g @agentctl\/cli/);

      const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
      // Each package at its own released version, read from its package.json, never written in code.
      const released = (name: string) =>
        `^${JSON.parse(readFileSync(join(REPO, `packages/${name}/package.json`), 'utf8')).version}`;
      expect(pkg.dependencies['@agentctl/core']).toBe(released('core'));
      expect(pkg.devDependencies['@agentctl/cli']).toBe(released('cli'));
      expect(pkg.scripts.validate).toBe('agentctl validate');
      expect(await readFile(join(project, '.gitignore'), 'utf8')).toContain('.agentctl/');
      expect(existsSync(join(project, 'tsconfig.json'))).toBe(name === 'single');
      const workflow = await readFile(join(project, '.github/workflows/agentctl.yml'), 'utf8');
      expect(workflow).toContain('npm run validate');
      // The editor maps the written schema onto every YAML file of the project, every document.
      const settings = JSON.parse(await readFile(join(project, '.vscode/settings.json'), 'utf8'));
      expect(settings['yaml.schemas']).toEqual({
        './.vscode/agentctl.schema.json': ['agentctl.yaml', 'agents/**/*.yaml', 'tests/**/*.yaml'],
      });
      const schema = JSON.parse(await readFile(join(project, '.vscode/agentctl.schema.json'), 'utf8'));
      expect(schema.$id).toBe('https://agentctl.dev/schemas/agentctl.schema.json');
      const validateDoc = schemaValidator(schema);
      const yamlFiles = ['agentctl.yaml', ...yamlUnder(project, 'agents'), ...yamlUnder(project, 'tests')];
      expect(yamlUnder(project, 'tests')).toEqual([join('tests', `${agent}.yaml`)]);
      expect(pkg.scripts.test).toBe('agentctl test');
      expect(workflow).toContain('npm test');
      const texts = yamlFiles.map((file) => readFileSync(join(project, file), 'utf8'));
      for (const [i, text] of texts.entries()) {
        for (const doc of parseAllDocuments(text)) {
          expect(validateDoc(doc.toJS()), `${yamlFiles[i]}: ${JSON.stringify(validateDoc.errors)}`).toBe(
            true,
          );
        }
      }

      if (name === 'mcp') {
        // Before `npm install`, validate says the server's script is missing and what to do.
        const early = await agentctl(['-C', project, 'validate'], { cwd: elsewhere });
        expect(early.code).toBe(1);
        expect(early.stdout).toContain(
          'agents/librarian.yaml:15:10: error: the script `node_modules/@modelcontextprotocol/server-filesystem/dist/index.js` that `node` would run does not exist (a relative one is taken from the project folder), so the server cannot start: install its package first (`npm install`) [command-path]',
        );
        // What `npm install` puts there: the repository's copy of the server the template names.
        const scope = join(project, 'node_modules/@modelcontextprotocol');
        await mkdir(scope, { recursive: true });
        await symlink(
          join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem'),
          join(scope, 'server-filesystem'),
        );
      }

      const validate = await agentctl(['-C', project, 'validate', '--strict'], { cwd: elsewhere });
      expect(validate.code, validate.stdout + validate.stderr).toBe(0);
      expect(validate.stdout).toContain('no problems');
      // The test init wrote passes as written, offline.
      const tested = await agentctl(['test'], { cwd: project });
      expect(tested.code, tested.stdout + tested.stderr).toBe(0);
      expect(tested.stdout).toContain('1 test(s): 1 passed');

      const cassette = join(elsewhere, `${name}.cassette.yaml`);
      const run = await agentctl(['run', agent, prompt, '--json', '--record', cassette], { cwd: project });
      expect(run.code, run.stderr).toBe(0);
      const events = parseNdjson(run.stdout);
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
      expect(events.filter((e) => e.type === 'tool_result' && e.isError)).toEqual([]);

      // Every system prompt sent is one of the instructions with each {{ ... }} rendered non-empty.
      const templates = texts.flatMap(instructions);
      const recorded = parseAllDocuments(await readFile(cassette, 'utf8'))[0].toJS() as {
        interactions: Array<{ request: { system?: string } }>;
      };
      const systems = recorded.interactions.map((i) => i.request.system ?? '');
      expect(systems.length).toBeGreaterThan(0);
      for (const system of systems) {
        expect(
          templates.some((t) => renderedFully(t, system)),
          system,
        ).toBe(true);
      }

      // A conversation goes on: the session, continued in a new process, is answered again.
      for (const message of [prompt, 'thanks']) {
        const turn = await agentctl(['run', agent, message, '--session', 'first-hour'], { cwd: project });
        expect(turn.code, turn.stderr).toBe(0);
        expect(turn.stdout.trim()).not.toBe('');
      }
    });
  },
);

/** The YAML files under `root/dir`, relative to `root`. */
function yamlUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => join(dir, file));
}

describe('agentctl init', () => {
  it('refuses an unknown template with exit 2 and names the templates', async () => {
    const { code, stderr } = await agentctl(['init', join(elsewhere, 'x'), '--template', 'nope'], {
      cwd: elsewhere,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/single, team, pipeline, mcp/);
    expect(existsSync(join(elsewhere, 'x'))).toBe(false);
  });
});

describe('agentctl init in a folder that is not quite empty', () => {
  it('writes nothing when a file is in the way (a .gitignore of a fresh repository), and --force overwrites it', async () => {
    const repo = join(elsewhere, 'fresh-repo');
    await mkdir(join(repo, '.git'), { recursive: true });
    await writeFile(join(repo, '.gitignore'), 'dist/\n');
    const refused = await agentctl(['init'], { cwd: repo });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'agentctl: nothing was written: .gitignore exists; use --force to overwrite files\n',
    );
    expect(readdirSync(repo).sort()).toEqual(['.git', '.gitignore']);
    const forced = await agentctl(['init', '--force'], { cwd: repo });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(repo, '.gitignore'), 'utf8')).toContain('.agentctl/');
  });

  it('refuses a file where a folder goes, even with --force, and a DIR that is a file, with exit 2 and no stack', async () => {
    const dir = join(elsewhere, 'github-file');
    await mkdir(dir);
    await writeFile(join(dir, '.github'), 'not a folder\n');
    for (const force of [[], ['--force']]) {
      const blocked = await agentctl(['init', dir, ...force], { cwd: elsewhere });
      expect(blocked.code).toBe(2);
      expect(blocked.stderr).toBe('agentctl: nothing was written: .github is not a folder\n');
      expect(readdirSync(dir)).toEqual(['.github']);
    }
    const file = join(elsewhere, 'plain-file');
    await writeFile(file, 'x\n');
    const notFolder = await agentctl(['init', file], { cwd: elsewhere });
    expect(notFolder.code).toBe(2);
    expect(notFolder.stderr).toBe(`agentctl: ${file} exists and is not a folder\n`);
  });
});

describe('agentctl init: the printed next steps', () => {
  it('quote a folder whose name a shell would expand, so `cd` works as printed', async () => {
    for (const name of ['costs $HOME', 'it’s `date`', "it's \\ here!"]) {
      const project = join(elsewhere, name);
      const init = await agentctl(['init', project], { cwd: elsewhere });
      expect(init.code, init.stderr).toBe(0);
      const cd = /^next: (cd .*)$/m.exec(init.stdout)?.[1] ?? '';
      const shell = await new Promise<string>((resolve, reject) =>
        execFile('sh', ['-c', `${cd} && pwd -P`], { cwd: elsewhere }, (error, stdout) =>
          error ? reject(error) : resolve(stdout.trim()),
        ),
      );
      expect(shell, cd).toBe(realpathSync(project));
    }
  });
});

describe('agentctl init where nothing can be written', () => {
  // Each of these hung before (Node's recursive mkdir retries /proc's ENOENT forever): a short
  // limit makes a hang fail the test.
  const limit = { timeoutMs: 15_000 };

  it('fails at once under /proc, naming the folder it could not create, with exit 1', async () => {
    for (const target of ['/proc/agentctl-init', '/proc/agentctl-init/deeper', '/proc/self/agentctl-init']) {
      const result = await agentctl(['init', target], { cwd: elsewhere, ...limit });
      const folder = target.replace(/\/deeper$/, '');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `agentctl: nothing was written: ENOENT: no such file or directory, mkdir '${folder}' (no folder can be created there)\n`,
      );
    }
  });

  it('refuses a folder under a file with exit 2, before writing anything', async () => {
    const file = join(elsewhere, 'in-the-way');
    await writeFile(file, 'x\n');
    for (const target of [join(file, 'project'), join(file, 'deep/project')]) {
      const result = await agentctl(['init', target], { cwd: elsewhere, ...limit });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`agentctl: cannot create ${target}: ${file} is not a folder\n`);
    }
  });

  it('refuses a DIR that is a link to nothing with exit 2, naming where it points', async () => {
    const link = join(elsewhere, 'dangling');
    await symlink(join(elsewhere, 'nowhere'), link);
    const result = await agentctl(['init', link], { cwd: elsewhere, ...limit });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `agentctl: ${link} is a link to ${join(elsewhere, 'nowhere')}, which does not exist: create that folder, or remove the link\n`,
    );
  });

  it('schema --write and sessions export fail at once under /proc too', async () => {
    const schema = await agentctl(['schema', '--write', '/proc/agentctl-init/s.json'], {
      cwd: elsewhere,
      ...limit,
    });
    expect(schema.code).toBe(1);
    expect(schema.stderr).toContain("mkdir '/proc/agentctl-init' (no folder can be created there)");
    const project = join(elsewhere, 'to-export');
    expect((await agentctl(['init', project], { cwd: elsewhere })).code).toBe(0);
    const run = await agentctl(['run', 'assistant', 'hello'], { cwd: project });
    const session = /session (\S+)/.exec(run.stderr)?.[1] ?? '';
    const exported = await agentctl(['sessions', 'export', session, '/proc/agentctl-init/s.json'], {
      cwd: project,
      ...limit,
    });
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(
      "cannot write /proc/agentctl-init/s.json: ENOENT: no such file or directory, mkdir '/proc/agentctl-init' (no folder can be created there)",
    );
  });
});

describe('agentctl schema --write', () => {
  it('writes the printed schema to a file, making its folder, and fails cleanly where it cannot', async () => {
    const target = join(elsewhere, 'deep/er/agentctl.schema.json');
    const [written, printed] = await Promise.all([
      agentctl(['schema', '--write', target], { cwd: elsewhere }),
      agentctl(['schema'], { cwd: elsewhere }),
    ]);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(await readFile(target, 'utf8'))).toEqual(JSON.parse(printed.stdout));
    const agent = await agentctl(['schema', 'agent', '--write', 'agent.json'], { cwd: elsewhere });
    expect(agent.code).toBe(0);
    expect(JSON.parse(await readFile(join(elsewhere, 'agent.json'), 'utf8')).$id).toBe(
      'https://agentctl.dev/schemas/agent.schema.json',
    );
    const blocked = await agentctl(['schema', '--write', join(target, 'under-a-file.json')], {
      cwd: elsewhere,
    });
    // Known before anything is written: bad usage, naming the file in the way (as run --record does).
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toBe(
      `agentctl: --write ${join(target, 'under-a-file.json')}: ${target} is not a folder; give the path of a file\n`,
    );
  });
});

describe('a state key that nothing sets', () => {
  it('is a warning with file:line:col at validate time, an error with --strict', async () => {
    const project = join(elsewhere, 'unset-state');
    await mkdir(join(project, 'agents'), { recursive: true });
    const agent = `kind: agent
name: helper
model: offline/echo
instruction: |
  You help with questions about {{ state.topic }}. Today is {{ date }}.
tools:
  - builtin: current_time
`;
    await writeFile(join(project, 'agents/helper.yaml'), agent);
    const [plain, strict] = await Promise.all([
      agentctl(['validate'], { cwd: project }),
      agentctl(['validate', '--strict'], { cwd: project }),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(
      'agents/helper.yaml:4:14: warning: `{{ state.topic }}` renders empty: no agent has `output_key: topic` and no module tool sets it [unset-state-key]',
    );
    expect(strict.code).toBe(1);
    // An agent that saves its output under that key is what sets it.
    await writeFile(
      join(project, 'agents/topic.yaml'),
      'kind: agent\nname: picker\nmodel: offline/echo\noutput_key: topic\n',
    );
    const fixed = await agentctl(['validate', '--strict'], { cwd: project });
    expect(fixed.code, fixed.stdout).toBe(0);
  });
});
