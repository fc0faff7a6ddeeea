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
