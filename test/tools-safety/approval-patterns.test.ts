import { readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, REPO, removeTempDirs } from '../support/cli.js';
import { probeProject, resultsByCall, runMain, scriptedAgent } from './probe-project.js';

// Approval rules and modes through the real CLI on the offline script model: a pattern matches
// what it says on every call, whatever the model puts in the arguments or the order of the YAML.

afterAll(removeTempDirs);

// A command tool (so it asks by default) that only echoes what it was given.
const tool = (name: string, parameters: string) => `
kind: tool
name: ${name}
description: Echoes its arguments
parameters: ${parameters}
command: { argv: [echo, "ran"], stdin_json: true }
`;
const PATH_TOOL = tool(
  'read_note',
  '{ type: object, properties: { path: { type: string } }, required: [path] }',
);
const DENIED = 'The call was not run: denied by the approval policy.';

describe.concurrent('approval patterns', () => {
  it('a deny regex with the g flag refuses every matching call, not every other one', async () => {
    const calls = ['secret1', 'secret2', 'secret3', 'secret4'].map((path) => ({
      name: 'read_note',
      arguments: { path },
    }));
    const agent = scriptedAgent('[read_note]', calls).replace(
      'tools: [read_note]',
      'tools: [read_note]\napproval:\n  allow: [read_note]\n  deny: [{ tool: read_note, args: { path: "/secret/g" } }]',
    );
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${PATH_TOOL}` });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({
      call_1: DENIED,
      call_2: DENIED,
      call_3: DENIED,
      call_4: DENIED,
    });
  });

  it('a key holding a dot does not stand in for the nested field a dotted rule names', async () => {
    const query = tool(
      'query',
      // Open on purpose: closed, the call with the dotted key would be refused as invalid first.
      '{ type: object, properties: { filter: { type: object, properties: { owner: { type: string } } } }, required: [filter], additionalProperties: true }',
    );
    const calls = [
      // The tool reads filter.owner = root; the extra key only looks like what the rule allows.
      { name: 'query', arguments: { filter: { owner: 'root' }, 'filter.owner': 'me' } },
      { name: 'query', arguments: { filter: { owner: 'me' } } },
    ];
    const agent = scriptedAgent('[query]', calls).replace(
      'tools: [query]',
      'tools: [query]\napproval:\n  allow: ["query:filter.owner=me"]\n  deny: [{ tool: query, args: { filter.owner: root } }]',
    );
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${query}` });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(resultsByCall(run.events)).toEqual({ call_1: DENIED, call_2: 'ran' });

    // Without the deny, the same call is asked about: the allow rule does not cover it.
    const allowOnly = await probeProject({
      'agents/main.yaml': `${agent.replace(/\n {2}deny: .*/, '')}---${query}`,
    });
    const asked = await runMain(allowOnly);
    expect(asked.code, asked.stderr).toBe(0);
    const pending = asked.events.find((e) => e.type === 'approval_required') as
      | { pending: Array<{ call: { id: string } }> }
      | undefined;
    expect(pending?.pending.map((p) => p.call.id)).toEqual(['call_1']);
    expect(resultsByCall(asked.events)).toEqual({ call_2: 'ran' });
  });

  it("a file tool's path is matched as the tool opens it: no spelling or link slips past a deny, or under an allow", async () => {
    const paths = [
      'secret/a.txt',
      './secret/a.txt',
      'notes/../secret/a.txt',
      'notes/link/a.txt',
      'notes/b.txt',
    ];
    const calls = paths.map((path) => ({ name: 'read_file', arguments: { path } }));
    const files = (rules: string) => ({
      'agents/main.yaml': scriptedAgent('[{ builtin: filesystem }]', [
        ...calls,
        // Absolute, inside the project: the tool reads it as secret/a.txt too.
        { name: 'read_file', arguments: { path: 'ABSOLUTE' } },
      ]).replace('tools: [{ builtin: filesystem }]', `tools: [{ builtin: filesystem }]\napproval:\n${rules}`),
      'secret/a.txt': 'TOP SECRET',
      'notes/b.txt': 'a note',
    });
    const project = async (rules: string) => {
      const dir = await probeProject(files(rules));
      await symlink('../secret', join(dir, 'notes/link'));
      const yaml = join(dir, 'agents/main.yaml');
      await writeFile(yaml, (await readFile(yaml, 'utf8')).replace('ABSOLUTE', join(dir, 'secret/a.txt')));
      return dir;
    };
    const denied = await runMain(
      await project(
        '  tools: { read_file: always }\n  allow: ["read_file:path=notes/*"]\n  deny: ["read_file:path=secret/*"]',
      ),
    );
    expect(denied.code, denied.stderr).toBe(0);
    expect(resultsByCall(denied.events)).toEqual({
      call_1: DENIED,
      call_2: DENIED,
      call_3: DENIED,
      call_4: DENIED,
      call_5: 'a note',
      call_6: DENIED,
    });

    // Without the deny, the link under notes/ is asked about: notes/* does not vouch for secret/.
    const allowed = await runMain(
      await project('  tools: { read_file: always }\n  allow: ["read_file:path=notes/*"]'),
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    const pending = allowed.events.find((e) => e.type === 'approval_required') as
      | { pending: Array<{ call: { id: string } }> }
      | undefined;
    expect(pending?.pending.map((p) => p.call.id).sort()).toEqual([
      'call_1',
      'call_2',
      'call_3',
      'call_4',
      'call_6',
    ]);
    expect(JSON.stringify(allowed.events)).not.toContain('TOP SECRET');

    // So does --allow on the command line.
    const cli = await runMain(await project('  tools: { read_file: always }'), [
      '--allow',
      'read_file:path=notes/*',
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.stringify(cli.events)).not.toContain('TOP SECRET');
    expect(resultsByCall(cli.events)).toEqual({ call_5: 'a note' });
  });

  it('a fetch URL is matched as the request it makes: no spelling slips past a deny, or under an allow', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end(`served ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const urls = [
        `${base}/admin`,
        `${base.replace('http', 'HTTP')}/admin`,
        `${base}/x/../admin`,
        `${base}/%61dmin`,
        `${base}/public/%2e%2e/admin`,
        `${base}/public/page`,
        `${base}/public/..%2fadmin`,
      ];
      const agent = scriptedAgent(
        '[{ builtin: fetch, allowed_hosts: ["127.0.0.1"] }]',
        urls.map((url) => ({ name: 'fetch', arguments: { url } })),
      ).replace(
        /tools: \[.*\]/,
        (tools) =>
          `${tools}\napproval:\n  tools: { fetch: always }\n  allow: ["fetch:url=${base}/public/*"]\n  deny: ["fetch:url=${base}/admin*"]`,
      );
      const run = await runMain(await probeProject({ 'agents/main.yaml': agent }));
      expect(run.code, run.stderr).toBe(0);
      const results = resultsByCall(run.events);
      for (const id of ['call_1', 'call_2', 'call_3', 'call_4', 'call_5'])
        expect(results[id], id).toBe(DENIED);
      expect(results.call_6).toContain('served /public/page');
      // Its path decodes to /public/../admin, which public/* does not vouch for: asked about.
      const pending = run.events.find((e) => e.type === 'approval_required') as
        | { pending: Array<{ call: { id: string } }> }
        | undefined;
      expect(pending?.pending.map((p) => p.call.id)).toEqual(['call_7']);
      expect(seen).toEqual(['/public/page']);
    } finally {
      server.close();
    }
  });

  it('the closest approval.tools pattern decides, whatever the order: write_* always beats an earlier *', async () => {
    const write = tool(
      'write_note',
      '{ type: object, properties: { path: { type: string } }, required: [path] }',
    );
    const calls = [
      { name: 'write_note', arguments: { path: 'a' } },
      { name: 'read_note', arguments: { path: 'b' } },
    ];
    const agent = scriptedAgent('[write_note, read_note]', calls).replace(
      'tools: [write_note, read_note]',
      'tools: [write_note, read_note]\napproval: { tools: { "*": never, "write_*": always } }',
    );
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${write}---${PATH_TOOL}` });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    const pending = run.events.find((e) => e.type === 'approval_required') as
      | { pending: Array<{ call: { name: string } }> }
      | undefined;
    expect(pending?.pending.map((p) => p.call.name)).toEqual(['write_note']);
    expect(resultsByCall(run.events)).toEqual({ call_2: 'ran' });
  });

  it('validate reports a rule whose regular expression does not compile, as run refuses it', async () => {
    const agent = scriptedAgent('[read_note]', [{ name: 'read_note', arguments: { path: 'a' } }]).replace(
      'tools: [read_note]',
      'tools: [read_note]\napproval:\n  deny: [{ tool: read_note, args: { path: "/(/" } }, "read_note:path=/[/"]',
    );
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${PATH_TOOL}` });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(
      'agents/main.yaml:7:43: error: approval.deny[0].args.path: invalid regular expression /(/: Unterminated group [approval-rule]',
    );
    expect(validate.stdout + validate.stderr).toContain(
      'approval.deny[1].args.path: invalid regular expression /[/: Unterminated character class',
    );
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('invalid regular expression /(/');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('--allow with a regular expression that does not compile is bad usage, naming the rule', async () => {
    const agent = scriptedAgent('[read_note]', [{ name: 'read_note', arguments: { path: 'a' } }]);
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${PATH_TOOL}` });
    const run = await runMain(dir, ['--allow', 'read_note:path=/(/']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'agentctl: --allow read_note.args.path: invalid regular expression /(/: Unterminated group',
    );
  });

  it("a toolset's approval patterns: the closest decides, whatever the order", async () => {
    const server = join(REPO, 'packages/mcp/test/fixtures/named.js');
    const calls = [
      { name: 'docs_write_file', arguments: { text: 'a' } },
      { name: 'docs_read_file', arguments: { text: 'b' } },
    ];
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ toolset: docs }]', calls)}---
kind: toolset
name: docs
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}, write_file, read_file] }
prefix: docs_
approval: { "*": never, "write_*": always }
`,
    });
    const run = await runMain(dir);
    expect(run.code, run.stderr).toBe(0);
    const pending = run.events.find((e) => e.type === 'approval_required') as
      | { pending: Array<{ call: { name: string } }> }
      | undefined;
    expect(pending?.pending.map((p) => p.call.name)).toEqual(['docs_write_file']);
    expect(resultsByCall(run.events)).toEqual({ call_2: 'server read_file {"text":"b"}' });
  });

  it('agentctl test: an answer expected from a run that paused for approval says what it waits for', async () => {
    const agent = scriptedAgent('[read_note]', [{ name: 'read_note', arguments: { path: 'a' } }]);
    const dir = await probeProject({
      'agents/main.yaml': `${agent}---${PATH_TOOL}`,
      'tests/asks.yaml':
        'kind: test\nname: asks\nagent: main\nturns:\n  - user: go\n    expect:\n      output: { contains: done }\n',
    });
    const result = await agentctl(['test'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'tests/asks.yaml:7:27: turn 1, output.contains: expected the answer to contain "done", but the run paused on read_note (call_1): decide in a next step (`approve: [read_note]`, `deny:` or `answer:`)',
    );
  });

  it('validate warns about an approval pattern that matches no tool of the agent (a typo asks about nothing)', async () => {
    const agent = scriptedAgent('[read_note]', [{ name: 'read_note', arguments: { path: 'a' } }]).replace(
      'tools: [read_note]',
      'tools: [read_note]\napproval:\n  tools: { "raed_*": always, "*": never, "transfer*": always }\n  deny: ["read_*", "rm_*"]',
    );
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${PATH_TOOL}` });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(0);
    const said = validate.stdout + validate.stderr;
    expect(said).toContain(
      'agents/main.yaml:7:12: warning: approval.tools pattern `raed_*` matches no tool of this agent (tools: read_note) [approval-rule]',
    );
    expect(said).toContain('approval.deny[1] pattern `rm_*` matches no tool of this agent');
    // A mode pattern does not reach the transfer tool, though its name matches.
    expect(said).toContain('approval.tools pattern `transfer*` matches no tool of this agent');
    expect(said).not.toContain('`read_*`');
    expect(said).not.toContain('pattern `*`');
    const strict = await agentctl(['validate', '--strict'], { cwd: dir });
    expect(strict.code).toBe(1);
  });

  it('run --queue refuses --approve-all and --allow, which would not reach the worker, naming what to do', async () => {
    const agent = scriptedAgent('[read_note]', [{ name: 'read_note', arguments: { path: 'a' } }]);
    const dir = await probeProject({ 'agents/main.yaml': `${agent}---${PATH_TOOL}` });
    for (const flag of [['--approve-all'], ['--allow', 'read_note']]) {
      const run = await agentctl(['run', 'main', 'go', '--queue', ...flag], {
        cwd: dir,
        env: { AGENTCTL_QUEUE_URL: 'redis://127.0.0.1:9' },
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim()).toBe(
        `agentctl: ${flag[0]} does not reach a queued run: the worker pauses on a call that needs approval; decide it with \`agentctl run main --session ID --approve CALL_ID --queue\``,
      );
    }
  });

  it('approval.tools naming transfer_to_agent asks before the transfer, as validate lets it say', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: desk
instruction: Route.
sub_agents: [other]
approval: { tools: { transfer_to_agent: always } }
---
kind: agent
name: other
description: Another desk
model: offline/echo
---
kind: model
name: desk
provider: offline
model: script
script:
  - tool_calls: [{ id: t1, name: transfer_to_agent, arguments: { agent_name: other } }]
`,
    });
    const first = await runMain(dir, ['--session', 's1']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.events.some((e) => e.type === 'transfer')).toBe(false);
    expect(first.events.find((e) => e.type === 'approval_required')).toMatchObject({
      pending: [{ call: { id: 't1', name: 'transfer_to_agent' } }],
    });
    const resumed = await agentctl(['run', 'main', '--session', 's1', '--approve', 't1', '--json'], {
      cwd: dir,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseNdjson(resumed.stdout).find((e) => e.type === 'transfer')).toMatchObject({
      from: 'main',
      to: 'other',
    });
  });
});
