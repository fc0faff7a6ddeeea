import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

// An agent whose module tool prints, as debugging code does: with console.log (also as it loads) and
// straight to stdout.
let project: string;
beforeAll(async () => {
  project = await tempProject({
    'agentctl.yaml': 'kind: project\nname: noisy\n',
    'agents/noisy.yaml': `kind: agent
name: noisy
model: offline/auto
tools: [{ module: ../tools/noisy.mjs }]
`,
    'tools/noisy.mjs': `console.log('loading noisy');
export const noisy = {
  name: 'noisy',
  description: 'Prints while it works',
  parameters: { type: 'object', properties: {} },
  execute: async () => {
    console.log('debug: noisy ran');
    process.stdout.write('a raw line\\n');
    return 'ok';
  },
};
`,
    'tests/noisy.yaml': `kind: test
name: noisy-calls-its-tool
agent: noisy
turns:
  - user: go
    expect:
      tool_calls: [{ name: noisy }]
`,
  });
});
afterAll(removeTempDirs);

it('run --json keeps stdout to NDJSON: what a module tool prints goes to stderr', async () => {
  const { code, stdout, stderr } = await agentctl(['run', 'noisy', 'go', '--json'], { cwd: project });
  expect(code, stderr).toBe(0);
  for (const line of stdout.trimEnd().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
  expect(parseNdjson(stdout).find((e) => e.type === 'tool_result')).toMatchObject({ content: 'ok' });
  expect(stderr).toContain('debug: noisy ran\n');
  expect(stderr).toContain('a raw line\n');
});

it('test --json prints one JSON document even when a module tool prints', async () => {
  const { code, stdout, stderr } = await agentctl(['test', '--json'], { cwd: project, timeoutMs: 60_000 });
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ summary: { passed: 1 } });
  expect(stderr).toContain('debug: noisy ran');
});

it('validate --format json and sarif print one JSON document even when a module prints as it loads', async () => {
  for (const format of ['json', 'sarif']) {
    const { code, stdout, stderr } = await agentctl(['validate', '--format', format], { cwd: project });
    expect(code, stderr).toBe(0);
    expect(() => JSON.parse(stdout), stdout).not.toThrow();
    expect(stderr).toContain('loading noisy');
  }
});

it('without --json, what the tool prints stays on stdout, as the user wrote it', async () => {
  const { code, stdout } = await agentctl(['run', 'noisy', 'go'], { cwd: project });
  expect(code).toBe(0);
  expect(stdout).toContain('debug: noisy ran');
});
