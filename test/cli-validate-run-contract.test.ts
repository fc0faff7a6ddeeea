import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { parseYaml, schemaValidator } from './support/schema-tools.js';

afterAll(removeTempDirs);

const PROJECT = 'kind: project\nname: p\n';

describe('what validate passes, run accepts at load', () => {
  it('a positive duration under a millisecond (0.4ms) is at least 1 ms, not a zero that run refuses', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nlimits: { tool_timeout: 0.4ms }\n',
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout + validate.stderr).toContain('no problems');
    expect(validate.code).toBe(0);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.stderr).not.toContain('must be longer than zero');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('hi');
  });
});

describe('a file saved with a byte order mark (and CRLF line ends)', () => {
  const BOM = '\ufeff';

  it('has its problems on line 1 at the column an editor shows, in every format and in run', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `${BOM}kind: agnt\r\nname: a\r\nmodel: offline/echo\r\n`,
    });
    const where = 'agents/a.yaml:1:7: error: unknown kind "agnt"';
    const text = await agentctl(['validate'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(where);
    const json = await agentctl(['validate', '--format', 'json'], { cwd: dir });
    expect(JSON.parse(json.stdout).diagnostics[0]).toMatchObject({ line: 1, col: 7, endLine: 1, endCol: 11 });
    const github = await agentctl(['validate', '--format', 'github'], { cwd: dir });
    expect(github.stdout).toContain('::error file=agents/a.yaml,line=1,col=7,endLine=1,endColumn=11,');
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(where);
  });

  it('is said to be unread when it is a .yml file holding documents, as one without the mark is', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'agents/b.yml': `${BOM}kind: agent\r\nname: b\r\nmodel: offline/echo\r\n`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout).toContain('agents/b.yml:1:1: warning: a .yml file is not read');
  });

  it('is read as YAML when it is a script of turns (a list), by validate and by run', async () => {
    const dir = await tempProject({
      'agentctl.yaml': `${PROJECT}include: [agents/*.yaml]\n`,
      'agents/a.yaml':
        'kind: model\nname: m\nprovider: offline\nmodel: script\nscript: ./scripts/s.yaml\n---\nkind: agent\nname: a\nmodel: m\n',
      'agents/scripts/s.yaml': `${BOM}- text: scripted answer\r\n`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout + validate.stderr).not.toContain('not valid YAML');
    expect(validate.code).toBe(0);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('scripted answer');
  });
});

describe('the schema editors use refuses what validate refuses', () => {
  it('a test timeout of zero ("0s", "0.0s")', async () => {
    const schema = await agentctl(['schema']);
    const editor = schemaValidator(JSON.parse(schema.stdout));
    for (const timeout of ['0s', '0.0s', '0']) {
      const text = `kind: test\nname: t\nagent: a\ntimeout: ${timeout}\nturns:\n  - user: hi\n`;
      const dir = await tempProject({
        'agentctl.yaml': PROJECT,
        'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
        'tests/t.yaml': text,
      });
      const validate = await agentctl(['validate'], { cwd: dir });
      expect(validate.code, timeout).toBe(1);
      expect(validate.stdout).toContain('tests/t.yaml:4:10: error: `timeout`');
      expect(editor(parseYaml(text)), timeout).toBe(false);
    }
    expect(editor(parseYaml('kind: test\nname: t\nagent: a\ntimeout: 0.5s\nturns:\n  - user: hi\n'))).toBe(
      true,
    );
  });
});

describe('YAML 1.1 tags that make values JSON has not (!!omap, !!set, !!binary)', () => {
  it('are read as the plain value written, so the schema checks it, in validate and run alike', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nlimits: !!omap [ max_iterations: 0 ]\ndescription: !!binary aGVsbG8=\n',
    });
    const expected = [
      'agents/a.yaml:4:9: warning: the tag !!omap is ignored: the value is read as the plain mapping, list or text it is written as [yaml-syntax]',
      'agents/a.yaml:4:16: error: `limits` must be a mapping, not a list [schema]',
      'agents/a.yaml:5:14: warning: the tag !!binary is ignored: the value is read as the plain mapping, list or text it is written as [yaml-syntax]',
    ];
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout.split('\n').slice(0, 3)).toEqual(expected);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    for (const line of expected) expect(run.stderr).toContain(line);
    // A mapping it once made into a Map with no keys passed with any key at all.
    const set = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nlimits: !!omap [ bogus: 1 ]\n',
    });
    expect((await agentctl(['validate'], { cwd: set })).code).toBe(1);
    expect((await agentctl(['run', 'a', 'hi'], { cwd: set })).code).toBe(1);
    // A file that asks for YAML 1.1 keeps its booleans, not its Maps, Sets and Dates.
    const old = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        '%YAML 1.1\n---\nkind: agent\nname: a\nmodel: offline/echo\nlimits: !!omap [ bogus: 1 ]\noutput_schema: !!set { a }\nmax_history: 2001-12-14\ndisallow_transfer_to_parent: yes\n',
    });
    const validate11 = await agentctl(['validate', '--json'], { cwd: old });
    expect(validate11.code).toBe(1);
    const errors = JSON.parse(validate11.stdout).diagnostics.filter(
      (d: { severity: string }) => d.severity === 'error',
    );
    expect(errors.map((d: { line: number; rule: string }) => `${d.line}:${d.rule}`)).toEqual([
      '6:schema',
      '8:schema',
    ]);
    expect((await agentctl(['run', 'a', 'hi'], { cwd: old })).code).toBe(1);
  });
});

describe('an http tool whose url no call could fetch (ftp:, file:, not a URL)', () => {
  const tool = (url: string) =>
    `kind: agent\nname: a\nmodel: offline/echo\ntools: [h]\n---\nkind: tool\nname: h\ndescription: d\nhttp: { url: "${url}", allowed_hosts: [127.0.0.1] }\n`;

  it('is refused at its line by validate, run and the schema editors use, also through ${VAR}', async () => {
    const editor = schemaValidator(JSON.parse((await agentctl(['schema'])).stdout));
    for (const url of ['ftp://127.0.0.1/x', 'file:///etc/passwd', 'not a url']) {
      const dir = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/a.yaml': tool(url) });
      const where = `agents/a.yaml:9:14: error: \`url\` is not valid: "${url}"; expected an http:// or https:// URL`;
      const validate = await agentctl(['validate'], { cwd: dir });
      expect(validate.code, url).toBe(1);
      expect(validate.stdout).toContain(where);
      const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
      expect(run.code, url).toBe(1);
      expect(run.stderr).toContain(where);
      expect(editor(parseYaml(tool(url).split('---\n')[1])), url).toBe(false);
    }
    const dir = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/a.yaml': tool('${SHOP_URL}') });
    const env = { SHOP_URL: 'ftp://127.0.0.1/x' };
    const problem =
      'agents/a.yaml:9:14: error: tool kind http: url is not an http:// or https:// URL (it is ftp:) once `${SHOP_URL}` is resolved';
    const validate = await agentctl(['validate'], { cwd: dir, env });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(problem);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(problem);
  });

  it('passes when the whole url comes from an argument, its hosts listed', async () => {
    const dir = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/a.yaml': tool('{{ args.url }}') });
    expect((await agentctl(['validate'], { cwd: dir })).code).toBe(0);
  });
});

describe('a duration the schema asks to be longer than zero, made 0 by ${VAR}', () => {
  it('is refused at its line by validate and run, for a tool, a model, middleware and a built-in', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `kind: agent
name: a
model: m
tools: [t, { agent: b }]
---
kind: agent
name: b
description: d
model: offline/echo
tools: [{ builtin: fetch, timeout: "\${T}", allowed_hosts: [127.0.0.1] }]
---
kind: agent
name: c
description: d
model: offline/echo
middleware: [{ timeout: { tool: "\${T}" } }]
---
kind: tool
name: t
description: d
timeout: \${T}
command: { argv: [echo, hi] }
---
kind: model
name: m
provider: offline
model: echo
timeout: \${T}
`,
    });
    const env = { T: '0s' };
    const expected = [
      'agents/a.yaml:10:36: error: timeout: must be longer than zero [env-values]',
      'agents/a.yaml:16:33: error: tool: must be longer than zero [env-values]',
      'agents/a.yaml:21:10: error: timeout: must be longer than zero [env-values]',
      'agents/a.yaml:28:10: error: timeout: must be longer than zero [env-values]',
    ];
    const validate = await agentctl(['validate'], { cwd: dir, env });
    expect(validate.code).toBe(1);
    expect(validate.stdout.split('\n').slice(0, 4)).toEqual(expected);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    for (const line of [expected[0], expected[2], expected[3]]) expect(run.stderr).toContain(line);
    const other = await agentctl(['run', 'c', 'hi'], { cwd: dir, env });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(expected[1]);
    expect((await agentctl(['validate'], { cwd: dir, env: { T: '5s' } })).code).toBe(0);
  });
});

describe('an agent whose model is written with ${VAR}', () => {
  it('is checked as run resolves it with the same environment, with the same message', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: ${MODEL:-offline/echo}\n---\nkind: model\nname: fast\nprovider: offline\nmodel: echo\n',
    });
    const cases: Array<[string | undefined, string | undefined]> = [
      [undefined, undefined],
      ['fast', undefined],
      ['bogus/x', 'agents/a.yaml:3:8: error: provider `bogus` is not available'],
      [
        'offline/nope',
        'agents/a.yaml:3:8: error: model `${MODEL:-offline/echo}`: provider `offline` has no model `nope`',
      ],
      ['nomodel', 'agents/a.yaml:3:8: error: model `${MODEL:-offline/echo}` is not defined'],
    ];
    for (const [value, problem] of cases) {
      const env = { MODEL: value };
      const validate = await agentctl(['validate'], { cwd: dir, env });
      const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
      expect(validate.code, value).toBe(problem ? 1 : 0);
      expect(run.code, value).toBe(problem ? 1 : 0);
      if (problem) {
        expect(validate.stdout).toContain(problem);
        expect(run.stderr).toContain(problem);
        expect(validate.stdout).toContain('(as `${MODEL:-offline/echo}` resolves with this environment)');
      } else expect(run.stdout).toContain('hi');
    }
  });
});

describe('a name in an agent file that only a test file defines', () => {
  it('is refused by validate at the line run refuses, saying why; a test file may still serve its tests', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nsub_agents: [helper]\n',
      'tests/t.yaml':
        'kind: agent\nname: helper\ndescription: d\nmodel: offline/echo\n---\nkind: model\nname: judge\nprovider: offline\nmodel: echo\n---\nkind: test\nname: t\nagent: a\nmodel: judge\nturns: [{ user: hi }]\n',
    });
    const problem =
      'agents/a.yaml:4:14: error: agent `helper` is not defined: define it in a `kind: agent` document';
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      `${problem}; only a test file defines it, and \`run\` reads no test file`,
    );
    expect(validate.stdout).toContain('1 error, 0 warnings');
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(problem);
  });
});

describe('a model key its kind of model never plays', () => {
  it('script on an offline model other than script, cassette on one other than replay: refused by schema, validate and run', async () => {
    const editor = schemaValidator(JSON.parse((await agentctl(['schema'])).stdout));
    const cases = [
      {
        model: 'kind: model\nname: m\nprovider: offline\nmodel: echo\nscript: [{ text: scripted }]\n',
        says: 'agents/m.yaml:5:1: error: `script` is only for model `script` of provider `offline` [schema]',
      },
      {
        model: 'kind: model\nname: m\nprovider: offline\nmodel: auto\ncassette: ./c.json\n',
        says: 'agents/m.yaml:5:1: error: `cassette` is only for model `replay` of provider `offline`, or a model of another provider (played when it has no api_key) [schema]',
      },
    ];
    for (const c of cases) {
      expect(editor(parseYaml(c.model)), c.model).toBe(false);
      const dir = await tempProject({
        'agentctl.yaml': PROJECT,
        'agents/a.yaml': 'kind: agent\nname: a\nmodel: m\n',
        'agents/m.yaml': c.model,
        'agents/c.json': '{}',
      });
      const validate = await agentctl(['validate'], { cwd: dir });
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(c.says);
      const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(c.says);
    }
    for (const ok of [
      'kind: model\nname: m\nprovider: offline\nmodel: script\nscript: [{ text: scripted }]\n',
      'kind: model\nname: m\nprovider: offline\nmodel: replay\ncassette: ./c.json\n',
      'kind: model\nname: m\nprovider: openai\nmodel: gpt-4.1-mini\ncassette: ./c.json\n',
    ])
      expect(editor(parseYaml(ok)), ok).toBe(true);
  });

  it('an offline script model with no turns, which fails every call, is refused before it runs', async () => {
    const editor = schemaValidator(JSON.parse((await agentctl(['schema'])).stdout));
    const cases = [
      {
        files: { 'agents/m.yaml': 'kind: model\nname: m\nprovider: offline\nmodel: script\n' },
        says: 'agents/m.yaml:1:1: error: model is missing the required key `script` [schema]',
      },
      {
        files: { 'agents/m.yaml': 'kind: model\nname: m\nprovider: offline\nmodel: script\nscript: []\n' },
        says: 'agents/m.yaml:5:9: error: `script` needs at least 1 item [schema]',
      },
      {
        files: {
          'agents/m.yaml': 'kind: model\nname: m\nprovider: offline\nmodel: script\nscript: ../s.yaml\n',
          's.yaml': '[]\n',
        },
        says: 'agents/m.yaml:5:9: error: script s.yaml:1:1: not a list of turns: / must NOT have fewer than 1 items [offline-file]',
      },
    ];
    for (const c of cases) {
      const model = c.files['agents/m.yaml'];
      if (!model.includes('../s.yaml')) expect(editor(parseYaml(model)), model).toBe(false);
      const dir = await tempProject({
        'agentctl.yaml': PROJECT,
        'agents/a.yaml': 'kind: agent\nname: a\nmodel: m\n',
        ...c.files,
      });
      const validate = await agentctl(['validate'], { cwd: dir });
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(c.says);
      const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(c.says);
      expect(run.stderr).toContain('nothing was run');
    }
    const inline = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/script\n',
    });
    const says =
      'agents/a.yaml:3:8: error: model `offline/script`: it needs `script:`, which an inline model cannot give; declare a `kind: model` with it';
    expect((await agentctl(['validate'], { cwd: inline })).stdout).toContain(says);
    expect((await agentctl(['run', 'a', 'hi'], { cwd: inline })).stderr).toContain(says);
  });
});
