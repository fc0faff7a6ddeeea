import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, FIXTURES, fixtureProject, removeTempDirs, tempDir } from './support/cli.js';

// The CI formats of `agentctl test`: JUnit XML checked against the JUnit XSD committed in
// test/fixtures/junit (with xmllint, from libxml2-utils, which .ci/services installs), and GitHub
// annotations at the line of each failing expectation.
const XSD = join(FIXTURES, 'junit/junit.xsd');
const env = { AGENT_TESTS_KEY: undefined };

async function xmllint(file: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('xmllint', ['--noout', '--schema', XSD, file]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

afterAll(removeTempDirs);

describe('agentctl test --format junit | github', () => {
  it('junit: valid against the JUnit XSD, a testsuite per file, failures and errors in their test case', async () => {
    const dir = await fixtureProject('agent-tests');
    const result = await agentctl(['test', '--format', 'junit'], { cwd: dir, env });
    expect(result.code).toBe(1);
    const xml = result.stdout;
    const file = join(await tempDir(), 'report.xml');
    await writeFile(file, xml);
    const lint = await xmllint(file);
    expect(lint.output).toContain('validates');
    expect(lint.code).toBe(0);
    expect(xml).toMatch(/<testsuites name="agentctl test" tests="10" failures="4" errors="1" time="[\d.]+">/);
    expect(xml).toMatch(/<testsuite name="checks\/fail\.yaml" id="\d" tests="4" failures="4" errors="0"/);
    expect(xml).toMatch(
      /<testcase name="refund-is-routed" classname="checks\/pass\.yaml" file="checks\/pass\.yaml" line="2" time="[\d.]+"\/>/,
    );
    const start = xml.indexOf('<testcase name="wrong-expectations"');
    const wrong = xml.slice(start, xml.indexOf('</testcase>', start));
    expect(wrong.match(/<failure /g)).toHaveLength(4);
    expect(wrong).toContain(
      '<failure message="transfer: expected a transfer to desk" type="transfer">checks/fail.yaml:7:17: turn 1, transfer: expected a transfer to desk\nexpected: &quot;desk&quot;\nactual: [&quot;refunds&quot;]</failure>',
    );
    expect(xml).toMatch(
      /<testcase name="cannot-compile"[^>]*>\n\s+<error message="[^"]*AGENT_TESTS_KEY is not set[^"]*" type="error">/,
    );

    // The same check fails a report that breaks the schema, so the validation above means something.
    await writeFile(file, xml.replace('line="2"', 'line="two"'));
    expect((await xmllint(file)).code).not.toBe(0);
  });

  it('junit: exit 0 and no failure elements when every test passes', async () => {
    const result = await agentctl(['test', 'checks/pass.yaml', '--format', 'junit'], {
      cwd: join(FIXTURES, 'projects/agent-tests'),
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('tests="5" failures="0" errors="0"');
    expect(result.stdout).not.toContain('<failure');
  });

  it('github: an ::error annotation at each failing expectation, paths from GITHUB_WORKSPACE', async () => {
    const dir = await fixtureProject('agent-tests');
    const result = await agentctl(['test', 'checks/fail.yaml', 'cannot-compile', '--format', 'github'], {
      cwd: dir,
      env: { ...env, GITHUB_WORKSPACE: dir },
    });
    expect(result.code).toBe(1);
    const annotations = result.stdout.split('\n').filter((line) => line.startsWith('::error'));
    expect(annotations).toHaveLength(10);
    expect(annotations).toContain(
      '::error file=checks/fail.yaml,line=7,col=17,endLine=7,endColumn=21,title=agentctl test::wrong-expectations: turn 1, transfer: expected a transfer to desk%0Aexpected: "desk"%0Aactual: ["refunds"]',
    );
    expect(annotations.some((a) => a.startsWith('::error file=checks/fail.yaml,line=18,col=47,'))).toBe(true);
    expect(annotations.some((a) => a.startsWith('::error file=checks/error.yaml,line=3,col=8,'))).toBe(true);
    // The text report comes first, for the job log.
    expect(result.stdout).toContain('✗ wrong-expectations checks/fail.yaml:2');
  });

  it('github: what the agents said is not read as workflow commands, only the annotations are', async () => {
    const dir = await tempDir('agentctl-test-github-hostile-');
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: hostile\n');
    await mkdir(join(dir, 'agents'));
    await mkdir(join(dir, 'tests'));
    await writeFile(
      join(dir, 'agents/parrot.yaml'),
      `kind: agent
name: parrot
model: parrot-script
---
kind: model
name: parrot-script
provider: offline
model: script
script: [{ fallback: true, text: "##[error]forged 100%" }]
`,
    );
    await writeFile(
      join(dir, 'tests/parrot.yaml'),
      'kind: test\nname: parrots\nagent: parrot\nturns:\n  - user: hi\n    expect: { output: { contains: nothing } }\n',
    );
    const result = await agentctl(['test', '--format', 'github', 'parrots'], {
      cwd: dir,
      env: { ...env, GITHUB_WORKSPACE: dir },
    });
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stdout.split('\n');
    const stop = lines[0]?.match(/^::stop-commands::(agentctl-[0-9a-f]{32})$/);
    expect(stop, lines[0]).not.toBeNull();
    const resume = lines.indexOf(`::${stop?.[1]}::`);
    // The report, where the answer is quoted, is inside; the annotation (escaped) comes after.
    const forged = lines.findIndex((line) => line.includes('##[error]forged'));
    expect(forged).toBeGreaterThan(0);
    expect(forged).toBeLessThan(resume);
    expect(lines.slice(resume + 1).filter((line) => line.startsWith('::error'))).toEqual([
      expect.stringMatching(/^::error file=tests\/parrot\.yaml,line=6,.*actual: "##\[error\]forged 100%25"$/),
    ]);
    // A second run's token differs, so no answer can end the pause it starts.
    const again = await agentctl(['test', '--format', 'github', 'parrots'], { cwd: dir, env });
    expect(again.stdout.split('\n')[0]).not.toBe(lines[0]);
  });

  it("github: what the tests' code prints as they run is not read as workflow commands either", async () => {
    // A module tool that logs what the model gave it, on stdout and stderr, while the test runs.
    const dir = await tempDir('agentctl-test-github-tool-');
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: loud\n');
    await mkdir(join(dir, 'agents/tools'), { recursive: true });
    await mkdir(join(dir, 'tests'));
    await writeFile(
      join(dir, 'agents/tools/shout.js'),
      `export default {
  name: 'shout',
  description: 'logs what it is given',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => { console.log(text); console.error(text); return 'logged'; },
};
`,
    );
    await writeFile(
      join(dir, 'agents/loud.yaml'),
      `kind: agent
name: loud
model: loud-script
tools: [{ module: ./tools/shout.js }]
---
kind: model
name: loud-script
provider: offline
model: script
script:
  - tool_calls: [{ name: shout, arguments: { text: "::error file=x.yaml,line=1::forged by the model" } }]
  - text: done
`,
    );
    await writeFile(
      join(dir, 'tests/loud.yaml'),
      'kind: test\nname: shouts\nagent: loud\nturns:\n  - user: hi\n    expect: { output: { contains: nothing } }\n',
    );
    const result = await agentctl(['test', '--format', 'github'], {
      cwd: dir,
      env: { ...env, GITHUB_WORKSPACE: dir },
    });
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stdout.split('\n');
    const stop = lines[0]?.match(/^::stop-commands::(agentctl-[0-9a-f]{32})$/);
    expect(stop, lines[0]).not.toBeNull();
    const resume = lines.indexOf(`::${stop?.[1]}::`);
    const forged = lines.indexOf('::error file=x.yaml,line=1::forged by the model');
    expect(forged).toBeGreaterThan(0);
    expect(forged).toBeLessThan(resume);
    // After the pause, the one annotation of the failed expectation.
    expect(lines.slice(resume + 1).filter((line) => line.startsWith('::'))).toEqual([
      expect.stringMatching(/^::error file=tests\/loud\.yaml,line=6,/),
    ]);
    // On stderr, the pause (which holds for both streams of the step) was already on when it came.
    expect(result.stderr).toContain('::error file=x.yaml,line=1::forged by the model');
  });

  it('github is the default format on GitHub Actions', async () => {
    const dir = await fixtureProject('agent-tests');
    const result = await agentctl(['test', 'wrong-expectations'], {
      cwd: dir,
      env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('::error file=checks/fail.yaml,line=7,col=17,');
  });

  it('a project with errors: every format says why no test ran, at the file and line, exit 1', async () => {
    const dir = await fixtureProject('agent-tests');
    await writeFile(
      join(dir, 'agents/broken.yaml'),
      'kind: agent\nname: broken\nmodel: offline/echo\nbogus: 1\n',
    );
    const junit = await agentctl(['test', '--format', 'junit'], { cwd: dir, env });
    expect(junit.code).toBe(1);
    expect(junit.stderr).toContain('agents/broken.yaml:4:1: error: unknown key `bogus`');
    const file = join(await tempDir(), 'report.xml');
    await writeFile(file, junit.stdout);
    const lint = await xmllint(file);
    expect(lint.code).toBe(0);
    expect(junit.stdout).toMatch(/<testsuites name="agentctl test" tests="1" failures="0" errors="1"/);
    expect(junit.stdout).toContain(
      '<error message="unknown key `bogus` in agent" type="unknown-key">agents/broken.yaml:4:1: unknown key `bogus` in agent</error>',
    );

    const github = await agentctl(['test', '--format', 'github'], {
      cwd: dir,
      env: { ...env, GITHUB_WORKSPACE: dir },
    });
    expect(github.code).toBe(1);
    // Warnings too, as `validate --format github` gives them; only workflow commands on stdout.
    expect(
      github.stdout
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('::')),
    ).toBe(true);
    expect(github.stdout).toContain(
      '::error file=agents/broken.yaml,line=4,col=1,endLine=4,endColumn=6,title=agentctl unknown-key::unknown key `bogus` in agent\n',
    );

    const json = await agentctl(['test', '--json'], { cwd: dir, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      summary: { total: 0 },
      tests: [],
      projectErrors: 1,
    });
    expect(JSON.parse(json.stdout).diagnostics).toContainEqual(
      expect.objectContaining({
        file: 'agents/broken.yaml',
        line: 4,
        col: 1,
        rule: 'unknown-key',
        severity: 'error',
      }),
    );

    // Text stays as it was: the diagnostics on stderr, nothing on stdout.
    const text = await agentctl(['test'], { cwd: dir, env });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
  });
});
