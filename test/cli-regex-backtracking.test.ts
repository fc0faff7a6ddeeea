import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { scriptedAgent } from './tools-safety/probe-project.js';

afterAll(removeTempDirs);

// `(a+)+$` on a run of a's that does not end the text backtracks about 2^n times: for n = 60, for
// ever. Before, while it ran nothing else did: not the test's timeout, not SIGTERM. Each command
// below would hang; the helper kills it after 20 s and fails the test.
const EVIL = '(a+)+$';
const TEXT = `${'a'.repeat(60)}!`;
const done = { timeoutMs: 20_000 };

describe('a regular expression of the project that backtracks without end', () => {
  it("in a test's `output.matches`: the expectation fails and the next tests run", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'tests/t.yaml': `kind: test\nname: evil\nagent: a\nturns:\n  - user: "${TEXT}"\n    expect: { output: { matches: "^${EVIL}" } }\n---\nkind: test\nname: fine\nagent: a\nturns:\n  - user: hi\n    expect: { output: { equals: hi } }\n`,
    });
    const run = await agentctl(['test', '--format', 'json'], { cwd: dir, ...done });
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.summary).toMatchObject({ total: 2, passed: 1, failed: 1 });
  });

  it("in a `redaction` pattern: the model's answer is checked and the run ends", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/r.yaml': `kind: agent\nname: r\nmodel: offline/echo\nmiddleware:\n  - { redaction: { patterns: ["${EVIL}"] } }\n`,
    });
    const run = await agentctl(['run', 'r', TEXT, '--json'], { cwd: dir, ...done });
    expect(run.code, run.stderr).toBe(0);
    expect(parseNdjson(run.stdout).at(-1)).toMatchObject({
      type: 'run_end',
      status: 'complete',
      output: TEXT,
    });
  });

  it("in a tool's `pattern`: the model's arguments are checked and refused", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/main.yaml': scriptedAgent('[shout]', [{ name: 'shout', arguments: { text: TEXT } }]),
      'agents/shout.yaml': `kind: tool\nname: shout\ndescription: Echoes\nparameters:\n  type: object\n  properties: { text: { type: string, pattern: "^${EVIL}" } }\n  required: [text]\ncommand: { argv: [echo, "{{ args.text }}"] }\n`,
    });
    const run = await agentctl(['run', 'main', 'go', '--json'], { cwd: dir, ...done });
    expect(run.code, run.stderr).toBe(0);
    const result = parseNdjson(run.stdout).find((event) => event.type === 'tool_result');
    expect(result).toMatchObject({ isError: true });
  });
});
