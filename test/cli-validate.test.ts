import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs, tempDir } from './support/cli.js';
import { sarifValidator } from './support/schema-tools.js';

interface JsonDiagnostic {
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  severity: 'error' | 'warning';
  rule: string;
  message: string;
}

interface JsonReport {
  version: number;
  valid: boolean;
  errorCount: number;
  warningCount: number;
  files: string[];
  diagnostics: JsonDiagnostic[];
}

const TEXT_LINE =
  /^(?<file>.+?):(?<line>\d+):(?<col>\d+): (?<severity>error|warning): (?<message>.*) \[(?<rule>[a-z0-9-]+)\]$/;
const GITHUB_LINE =
  /^::(?<level>error|warning) file=(?<file>[^,]*),line=(?<line>\d+),col=(?<col>\d+),endLine=(?<endLine>\d+),endColumn=(?<endColumn>\d+),title=(?<title>[^,:]*)::(?<message>.*)$/;

// The three errors of the invalid project (test/fixtures/projects/invalid plus syntax.yaml), and
// the text each one points at.
const EXPECTED = [
  { file: 'agents/syntax.yaml', line: 4, col: 14, rule: 'yaml-syntax', at: 'a: b' },
  { file: 'agents/unknown-key.yaml', line: 5, col: 1, rule: 'unknown-key', at: 'colour' },
  { file: 'agents/unresolved.yaml', line: 5, col: 9, rule: 'unresolved-reference', at: 'no_such_tool' },
];

const unescapeData = (text: string) =>
  text.replaceAll('%0A', '\n').replaceAll('%0D', '\r').replaceAll('%25', '%');
const unescapeProperty = (text: string) => unescapeData(text.replaceAll('%3A', ':').replaceAll('%2C', ','));

let invalid: string;
let hostile: string;

beforeAll(async () => {
  invalid = await fixtureProject('invalid');
  // Written here rather than kept as a fixture, so linters of the repository never parse it.
  await writeFile(
    join(invalid, 'agents', 'syntax.yaml'),
    'kind: agent\nname: gamma\nmodel: offline/echo\ninstruction: a: b\n',
  );
  // Names and messages that need escaping: a folder with a comma, a file with a colon and a `#`,
  // and an unknown key holding a percent sign, a colon and a newline.
  hostile = await tempDir();
  await mkdir(join(hostile, 'agents', 'we,ird'), { recursive: true });
  await writeFile(join(hostile, 'agentctl.yaml'), 'kind: project\nname: hostile\n');
  await writeFile(
    join(hostile, 'agents', 'odd.yaml'),
    'kind: agent\nname: odd\nmodel: offline/echo\ninstruction: Hi.\n"50%: off\\nnow": 1\n',
  );
  await writeFile(
    join(hostile, 'agents', 'we,ird', 'x:y #1.yaml'),
    'kind: agent\nname: z\nmodel: offline/echo\ninstruction: a: b\n',
  );
});
afterAll(removeTempDirs);

describe.concurrent('agentctl validate --format text', () => {
  it('prints file:line:col: error: message [rule] at the offending text, and exits 1', async () => {
    const { code, stdout, stderr } = await agentctl(['validate'], { cwd: invalid });
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('3 errors, 0 warnings');
    const parsed = lines.slice(0, -1).map((line) => {
      const match = TEXT_LINE.exec(line);
      expect(match, line).not.toBeNull();
      return match!.groups!;
    });
    expect(parsed.map((d) => [d.file, Number(d.line), Number(d.col), d.severity, d.rule]).sort()).toEqual(
      EXPECTED.map((e) => [e.file, e.line, e.col, 'error', e.rule]).sort(),
    );
    for (const e of EXPECTED) {
      const source = readFileSync(join(invalid, e.file), 'utf8').split('\n')[e.line - 1];
      expect(source.slice(e.col - 1)).toMatch(new RegExp(`^${e.at}`));
    }
    expect(parsed.find((d) => d.rule === 'unknown-key')?.message).toContain('colour');
    expect(parsed.find((d) => d.rule === 'unresolved-reference')?.message).toContain('no_such_tool');
  });

  it('keeps a message with a newline on its one line', async () => {
    const { code, stdout } = await agentctl(['validate'], { cwd: hostile });
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(0, -1)) expect(line).toMatch(TEXT_LINE);
    expect(stdout).toContain('agents/we,ird/x:y #1.yaml:4:14: error:');
  });
});

describe.concurrent('agentctl validate --format json', () => {
  it('prints the version 1 report with every diagnostic field', async () => {
    const { code, stdout } = await agentctl(['validate', '--format', 'json'], { cwd: invalid });
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as JsonReport;
    expect(report).toMatchObject({ version: 1, valid: false, errorCount: 3, warningCount: 0 });
    expect(report.files.map((f) => f.slice(invalid.length + 1)).sort()).toEqual([
      'agentctl.yaml',
      'agents/syntax.yaml',
      'agents/unknown-key.yaml',
      'agents/unresolved.yaml',
    ]);
    expect(report.diagnostics).toHaveLength(3);
    for (const d of report.diagnostics) {
      expect(Object.keys(d).sort()).toEqual(
        ['col', 'endCol', 'endLine', 'file', 'line', 'message', 'rule', 'severity'].sort(),
      );
      const e = EXPECTED.find((x) => x.file === d.file);
      expect(e, d.file).toBeDefined();
      expect(d).toMatchObject({ line: e!.line, col: e!.col, rule: e!.rule, severity: 'error' });
      expect(d.message.length).toBeGreaterThan(0);
      expect(d.endLine).toBeGreaterThanOrEqual(d.line);
    }
    const unresolved = report.diagnostics.find((d) => d.rule === 'unresolved-reference')!;
    expect(unresolved.endCol - unresolved.col).toBe('no_such_tool'.length);
  });
});

describe.concurrent('agentctl validate --format github', () => {
  it('prints one ::error workflow command per diagnostic with the full range', async () => {
    const { code, stdout } = await agentctl(['validate', '--format', 'github'], { cwd: invalid });
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const parsed = lines.map((line) => {
      const match = GITHUB_LINE.exec(line);
      expect(match, line).not.toBeNull();
      return match!.groups!;
    });
    for (const e of EXPECTED) {
      const g = parsed.find((p) => p.file === e.file);
      expect(g, e.file).toBeDefined();
      expect(g).toMatchObject({ level: 'error', line: String(e.line), col: String(e.col) });
      expect(g!.title).toContain(e.rule);
    }
    expect(parsed.find((p) => p.file === 'agents/unresolved.yaml')).toMatchObject({
      endLine: '5',
      endColumn: String(9 + 'no_such_tool'.length),
    });
  });

  it('escapes %, CR and LF in messages and also : and , in properties, losing nothing', async () => {
    const [github, json] = await Promise.all([
      agentctl(['validate', '--format', 'github'], { cwd: hostile }),
      agentctl(['validate', '--format', 'json'], { cwd: hostile }),
    ]);
    expect(github.code).toBe(1);
    const lines = github.stdout.trimEnd().split('\n');
    // A raw newline in a message would have split a command over two lines.
    expect(lines).toHaveLength(2);
    expect(github.stdout).toContain('file=agents/we%2Cird/x%3Ay #1.yaml,line=4,col=14,');
    expect(github.stdout).toContain('::unknown key `50%25: off%0Anow` in agent');
    const report = JSON.parse(json.stdout) as JsonReport;
    const decoded = lines.map((line) => {
      const g = GITHUB_LINE.exec(line)!.groups!;
      return { file: unescapeProperty(g.file), line: Number(g.line), message: unescapeData(g.message) };
    });
    expect(decoded.sort((a, b) => a.file.localeCompare(b.file))).toEqual(
      report.diagnostics
        .map((d) => ({ file: d.file, line: d.line, message: d.message }))
        .sort((a, b) => a.file.localeCompare(b.file)),
    );
    expect(decoded.some((d) => d.message.includes('50%: off\nnow'))).toBe(true);
  });

  it('is the default when GITHUB_ACTIONS=true, and --format still wins', async () => {
    const [ci, text] = await Promise.all([
      agentctl(['validate'], { cwd: invalid, env: { GITHUB_ACTIONS: 'true' } }),
      agentctl(['validate', '--format', 'text'], { cwd: invalid, env: { GITHUB_ACTIONS: 'true' } }),
    ]);
    expect(ci.code).toBe(1);
    const lines = ci.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(GITHUB_LINE);
    expect(text.stdout).toMatch(/^agents\/\S+:\d+:\d+: error: /m);
    expect(text.stdout).not.toContain('::error');
  });
});

describe.concurrent('agentctl validate --format sarif', () => {
  const validate = sarifValidator();

  async function sarif(cwd: string) {
    const { code, stdout } = await agentctl(['validate', '--format', 'sarif'], { cwd });
    const log = JSON.parse(stdout);
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
    return { code, log };
  }

  it('writes a SARIF 2.1.0 log that matches the schema and the diagnostics', async () => {
    const { code, log } = await sarif(invalid);
    expect(code).toBe(1);
    const run = log.runs[0];
    expect(run.tool.driver.name).toBe('agentctl');
    expect(run.results).toHaveLength(3);
    const base = run.originalUriBaseIds.PROJECTROOT.uri as string;
    for (const result of run.results) {
      expect(run.tool.driver.rules[result.ruleIndex].id).toBe(result.ruleId);
      expect(result.level).toBe('error');
      const location = result.locations[0].physicalLocation;
      expect(location.artifactLocation.uriBaseId).toBe('PROJECTROOT');
      const path = fileURLToPath(new URL(location.artifactLocation.uri, base));
      const e = EXPECTED.find((x) => join(invalid, x.file) === path);
      expect(e, path).toBeDefined();
      expect(location.region).toMatchObject({ startLine: e!.line, startColumn: e!.col });
      expect(result.ruleId).toBe(e!.rule);
    }
  });

  it('gives artifact URIs that resolve to the files, whatever their names hold', async () => {
    const { log } = await sarif(hostile);
    const run = log.runs[0];
    const base = run.originalUriBaseIds.PROJECTROOT.uri as string;
    const paths = run.results.map(
      (r: { locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }) =>
        fileURLToPath(new URL(r.locations[0].physicalLocation.artifactLocation.uri, base)),
    );
    expect(paths.sort()).toEqual([
      join(hostile, 'agents/odd.yaml'),
      join(hostile, 'agents/we,ird/x:y #1.yaml'),
    ]);
    for (const path of paths) expect(existsSync(path)).toBe(true);
  });

  it('rejects a log the subset schema forbids (the schema is not a rubber stamp)', () => {
    const region = { startLine: 0, startColumn: 1, endLine: 1, endCol: 2 };
    const bad = {
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'x', rules: [] } },
          results: [
            {
              ruleId: 'r',
              level: 'fatal',
              message: { text: 'm' },
              locations: [{ physicalLocation: { artifactLocation: { uri: 'a.yaml' }, region } }],
            },
          ],
        },
      ],
    };
    expect(validate(bad)).toBe(false);
    const paths = (validate.errors as Array<{ instancePath: string }>).map((e) => e.instancePath);
    expect(paths).toContain('/runs/0/results/0/level');
    expect(paths).toContain('/runs/0/results/0/locations/0/physicalLocation/region/startLine');
    expect(paths).toContain('/runs/0/results/0/locations/0/physicalLocation/region');
  });
});

describe.concurrent('agentctl validate exit codes', () => {
  let warnOnly: string;
  beforeAll(async () => {
    warnOnly = await tempDir();
    await mkdir(join(warnOnly, 'agents'));
    await writeFile(join(warnOnly, 'agentctl.yaml'), 'kind: project\nname: warn\n');
    await writeFile(
      join(warnOnly, 'agents', 'a.yaml'),
      'kind: agent\nname: a\nmodel: offline/echo\ninstruction: Hi {{ nope.thing }}\n',
    );
  });

  it('exits 0 on a valid project', async () => {
    const valid = await fixtureProject('refunds');
    const { code, stdout } = await agentctl(['validate'], { cwd: valid });
    expect(stdout).toContain('no problems');
    expect(code).toBe(0);
  });

  it('exits 0 with warnings, and 1 with --strict', async () => {
    const [loose, strict, strictJson] = await Promise.all([
      agentctl(['validate'], { cwd: warnOnly }),
      agentctl(['validate', '--strict'], { cwd: warnOnly }),
      agentctl(['validate', '--strict', '--format', 'json'], { cwd: warnOnly }),
    ]);
    expect(loose.stdout).toMatch(/^agents\/a\.yaml:4:\d+: warning: .*\[instruction-template\]$/m);
    expect(loose.code).toBe(0);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strictJson.stdout)).toMatchObject({ valid: false, errorCount: 0, warningCount: 1 });
    expect(strictJson.code).toBe(1);
  });

  it('exits 2 on an unknown --format and names the choices', async () => {
    const { code, stdout, stderr } = await agentctl(['validate', '--format', 'xml'], { cwd: warnOnly });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain("'xml' is invalid");
    expect(stderr).toContain('sarif');
  });
});

describe('validate with a module tool that misbehaves while it is imported', () => {
  async function projectWith(moduleText: string): Promise<string> {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents/tools'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(
      join(dir, 'agents/a.yaml'),
      'kind: agent\nname: a\nmodel: offline/auto\ntools: [{ module: ./tools/t.js }]\n',
    );
    await writeFile(join(dir, 'agents/tools/t.js'), moduleText);
    return dir;
  }

  it('reports a module that exits the process, instead of passing with exit 0 and no output', async () => {
    const dir = await projectWith('process.exit(7);\n');
    const { code, stdout } = await agentctl(['validate'], { cwd: dir });
    expect(stdout).toMatch(
      /^agents\/a\.yaml:4:19: error: module \.\/tools\/t\.js failed to load: the module worker stopped \(exit code 7; .*\[module-exports\]$/m,
    );
    expect(code).toBe(1);
  });

  it('says where in the code a module fails to load, in validate and in run', async () => {
    // A syntax error in an ES module: Node itself gives no position for it.
    const broken = await projectWith("export default { name: 't',\n  execute: () => 1,\n");
    const checked = await agentctl(['validate'], { cwd: broken });
    expect(checked.stdout).toMatch(
      /^agents\/a\.yaml:4:19: error: module \.\/tools\/t\.js failed to load: agents\/tools\/t\.js:3:1: Unexpected end of input \[module-exports\]$/m,
    );
    const ran = await agentctl(['run', 'a', 'hi'], { cwd: broken });
    expect(ran.stderr).toMatch(
      /^agents\/a\.yaml:4:19: error: agents\/tools\/t\.js:3:1: Unexpected end of input \[tool\]$/m,
    );
    expect(ran.code).toBe(1);
    // A throw as it loads, in a helper it imports: at the throw.
    const throwing = await projectWith("import { V } from './v.js';\nexport default V;\n");
    await writeFile(
      join(throwing, 'agents/tools/v.js'),
      "const f = () => {\n  throw new Error('no V');\n};\nf();\nexport const V = 1;\n",
    );
    const thrown = await agentctl(['validate'], { cwd: throwing });
    expect(thrown.stdout).toMatch(/failed to load: agents\/tools\/v\.js:2:9: no V \[module-exports\]$/m);
    const ranThrown = await agentctl(['run', 'a', 'hi'], { cwd: throwing });
    expect(ranThrown.stderr).toMatch(
      /^agents\/a\.yaml:4:19: error: agents\/tools\/v\.js:2:9: no V \[tool\]$/m,
    );
  });

  it('gives up on a module whose import never ends, instead of hanging', async () => {
    const dir = await projectWith('while (true) {}\n');
    const { code, stdout } = await agentctl(['validate'], { cwd: dir, timeoutMs: 120_000 });
    expect(stdout).toMatch(/^agents\/a\.yaml:4:19: error: .*did not finish loading within 30 s/m);
    expect(code).toBe(1);
  }, 150_000);
});
