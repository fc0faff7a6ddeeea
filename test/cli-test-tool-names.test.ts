import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const PROJECT = 'kind: project\nname: p\n';

const AGENTS = `kind: agent
name: desk
model: offline/echo
tools: [{ builtin: filesystem }, { agent: helper }]
sub_agents: [billing]
---
kind: agent
name: billing
model: offline/echo
---
kind: agent
name: helper
model: offline/echo
tools: [{ builtin: todo }]
---
kind: agent
name: other
model: offline/echo
`;

describe('a test naming what its agent tree does not have', () => {
  it('is refused by validate and by test, at the name, with a did-you-mean', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': AGENTS,
      'tests/t.yaml': `kind: test
name: typos
agent: desk
turns:
  - user: hi
    expect:
      tool_calls: [{ name: read_fil }, { name: tod }]
      pending: [writefile]
      transfer: other
  - approve: [edit_fil]
    deny: [nope]
    answer: { user_inptu: yes }
`,
    });
    const expected = [
      "tests/t.yaml:7:28: error: agent `desk`'s tree has no tool `read_fil`; did you mean `read_file`?",
      "tests/t.yaml:7:48: error: agent `desk`'s tree has no tool `tod`; did you mean `todo`?",
      "tests/t.yaml:8:17: error: agent `desk`'s tree has no tool `writefile` and no scripted call has that id; did you mean `write_file`?",
      "tests/t.yaml:9:17: error: agent `other` is not in agent `desk`'s tree, so nothing can transfer to it",
      "tests/t.yaml:10:15: error: agent `desk`'s tree has no tool `edit_fil` and no scripted call has that id; did you mean `edit_file`?",
      "tests/t.yaml:11:12: error: agent `desk`'s tree has no tool `nope`",
      "tests/t.yaml:12:15: error: agent `desk`'s tree has no tool `user_inptu`",
    ];
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    for (const line of expected) expect(validate.stdout).toContain(line);
    const test = await agentctl(['test'], { cwd: dir });
    expect(test.code).toBe(1);
    for (const line of expected) expect(test.stderr).toContain(line);
    expect(test.stderr).toContain('nothing was run');
  });

  it('passes when every name is in the tree: sub-agents, agents as tools and their tools, call ids', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `${AGENTS}---
kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: first, name: write_file, arguments: { path: a, content: b } }]
  - text: done
`,
      'tests/t.yaml': `kind: test
name: names
agent: desk
turns:
  - user: hi
    expect:
      tool_calls: [{ name: read_file }, { name: todo }, { name: helper }, { name: transfer_to_agent }]
      pending: [write_file, first]
      transfer: billing
  - approve: [edit_file, call_1_0, first]
    deny: [write_file]
`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout + validate.stderr).toContain('no problems');
    expect(validate.code).toBe(0);
  });

  it('is left to the run when a toolset in the tree gives names known only once its server runs', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `kind: agent
name: desk
model: offline/echo
tools: [{ toolset: docs }]
---
kind: toolset
name: docs
mcp: { command: node, args: [server.js] }
`,
      'server.js': '// never started: validate stays offline\n',
      'tests/t.yaml': `kind: test
name: remote-names
agent: desk
turns:
  - user: hi
    expect:
      tool_calls: [{ name: search_docs }]
`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout).not.toContain('test-tool-names');
    expect(validate.code).toBe(0);
  });
});

describe('the tools a built-in gives with its options', () => {
  it('a read-only filesystem has no write_file: a test expecting one is refused by validate and test', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `kind: agent
name: reader
model: offline/echo
tools: [{ builtin: filesystem, options: { read_only: true } }]
---
kind: agent
name: writer
model: offline/echo
tools: [{ builtin: filesystem, options: { read_only: false } }]
`,
      'tests/t.yaml': `kind: test
name: reads
agent: reader
turns:
  - user: hi
    expect:
      tool_calls: [{ name: read_file }, { name: write_file }]
---
kind: test
name: writes
agent: writer
turns:
  - user: hi
    expect:
      tool_calls: [{ name: write_file }]
`,
    });
    const expected = "tests/t.yaml:7:49: error: agent `reader`'s tree has no tool `write_file`";
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(expected);
    // Only the read-only one: with read_only false the filesystem writes.
    expect(validate.stdout).toContain('1 error,');
    const test = await agentctl(['test'], { cwd: dir });
    expect(test.code).toBe(1);
    expect(test.stderr).toContain(expected);
  });
});

describe('approval rules of a built-in with its options', () => {
  it('approval naming write_file of a read-only filesystem is refused by validate as by run', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `kind: agent
name: reader
model: offline/echo
tools: [{ builtin: filesystem, options: { read_only: true } }]
approval: { tools: { write_file: always } }
---
kind: agent
name: writer
model: offline/echo
tools: [{ builtin: filesystem, options: { read_only: false } }]
approval: { tools: { write_file: always } }
`,
    });
    const says =
      'agents/a.yaml:5:22: error: approval.tools names `write_file`, which is not a tool of this agent (tools: read_file, list_dir, find_files, grep)';
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(says);
    expect(validate.stdout).toContain('1 error,');
    const run = await agentctl(['run', 'reader', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(says);
  });
});

describe('call ids of an offline script kept in a file', () => {
  const files = (test: string) => ({
    'agentctl.yaml': PROJECT,
    'agents/a.yaml': `kind: model
name: scripted
provider: offline
model: script
script: ../scripts/s.yaml
---
kind: agent
name: writer
model: scripted
tools: [{ builtin: filesystem }]
`,
    'scripts/s.yaml': `- tool_calls: [{ id: save, name: write_file, arguments: { path: out.txt, content: saved } }]
- text: written
`,
    'tests/t.yaml': test,
  });

  it('are read by validate: a test deciding on an id the script never gives is refused', async () => {
    const dir = await tempProject(
      files(`kind: test
name: wrong-id
agent: writer
turns:
  - user: hi
    expect:
      pending: [saev]
  - approve: [save, saev]
`),
    );
    const expected = [
      "tests/t.yaml:7:17: error: agent `writer`'s tree has no tool `saev` and no scripted call has that id",
      "tests/t.yaml:8:21: error: agent `writer`'s tree has no tool `saev` and no scripted call has that id",
    ];
    for (const args of [['validate'], ['validate']]) {
      // The second validate reads the project's cache of checked files, and says the same.
      const validate = await agentctl(args, { cwd: dir });
      expect(validate.code).toBe(1);
      for (const line of expected) expect(validate.stdout).toContain(line);
    }
    const test = await agentctl(['test'], { cwd: dir });
    expect(test.code).toBe(1);
    for (const line of expected) expect(test.stderr).toContain(line);
  });

  it('are the ids a test may decide on: one the script gives passes validate and test', async () => {
    const dir = await tempProject(
      files(`kind: test
name: right-id
agent: writer
turns:
  - user: hi
    expect:
      pending: [save]
  - approve: [save]
    expect:
      output: { contains: written }
`),
    );
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout + validate.stderr).toContain('no problems');
    expect(validate.code).toBe(0);
    const test = await agentctl(['test'], { cwd: dir });
    expect(test.stdout + test.stderr).toContain('1 passed');
    expect(test.code).toBe(0);
  });
});

describe('a model mapping naming an agent outside the test tree', () => {
  it('is refused by validate and by test at the key: the model would be used by none of its agents', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': AGENTS,
      'tests/t.yaml': `kind: test
name: mapped
agent: desk
model:
  billing: offline/echo
  other: offline/echo
turns:
  - user: hi
    expect: { output: { contains: hi } }
`,
    });
    const expected =
      "tests/t.yaml:6:3: error: agent `other` is not in agent `desk`'s tree, so the model given to it would be used by no agent of this test";
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(expected);
    // `billing`, a sub-agent of desk, is in the tree: no error at its key.
    expect(validate.stdout).not.toContain('tests/t.yaml:5:');
    const test = await agentctl(['test'], { cwd: dir });
    expect(test.code).toBe(1);
    expect(test.stderr).toContain(expected);
  });
});
