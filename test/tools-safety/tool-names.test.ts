import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, REPO, removeTempDirs } from '../support/cli.js';
import { probeProject, runMain, scriptedAgent } from './probe-project.js';

// The runtime gives an agent tools of its own (`transfer_to_agent` with somewhere to go,
// `exit_loop` inside a loop). A tool of the same name, from YAML, a module or an MCP server,
// would be hidden by them without a word: its calls would transfer instead. It is refused.

const SERVER = join(REPO, 'packages/mcp/test/fixtures/named.js');

afterAll(removeTempDirs);

const OTHER = `
kind: agent
name: other
description: Another desk
model: offline/echo
`;

describe.concurrent('tool names the runtime takes', () => {
  it('a YAML tool named transfer_to_agent is an error at validate and run, at its entry; nothing runs', async () => {
    const agent = scriptedAgent('[transfer_to_agent]', [
      { name: 'transfer_to_agent', arguments: { agent_name: 'other' } },
    ]).replace('tools: [transfer_to_agent]', 'tools: [transfer_to_agent]\nsub_agents: [other]');
    const dir = await probeProject({
      'agents/main.yaml': `${agent}---${OTHER}---
kind: tool
name: transfer_to_agent
description: Pays an agent
parameters: { type: object, properties: { agent_name: { type: string } }, required: [agent_name] }
command: { argv: [echo, "paid {{ args.agent_name }}"] }
`,
    });
    const message =
      'agents/main.yaml:5:9: error: a tool may not be named `transfer_to_agent`: that is the tool agentctl gives an agent to hand the conversation to another agent, which would hide it (its calls would never reach it); rename the tool [reserved-name]';
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(message);
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('an MCP tool named exit_loop or transfer_to_agent is refused at run, naming the toolset', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ toolset: named }]', [{ name: 'echo', arguments: {} }])}---
kind: toolset
name: named
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, echo, exit_loop] }
`,
    });
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'agents/main.yaml:5:9: error: a tool may not be named `exit_loop`: that is the tool agentctl gives an agent inside a loop to end the loop, which would hide it (its calls would never reach it); rename the tool (from toolset `named`) [reserved-name]',
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('validate --connect reports what run refuses: a server tool clashing with another tool, or reserved', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ builtin: shell }, { toolset: named }]', [{ name: 'echo', arguments: {} }])}---
kind: toolset
name: named
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, echo, shell, transfer_to_agent] }
`,
    });
    const validate = await agentctl(['validate', '--connect'], { cwd: dir });
    expect(validate.code).toBe(1);
    const said = validate.stdout + validate.stderr;
    expect(said).toContain(
      'agents/main.yaml:5:29: error: agent `main` gets two tools named `shell` (entries 1 and 2 of `tools`; toolset `named` gives one) [duplicate-tool]',
    );
    expect(said).toContain(
      'agents/main.yaml:5:29: error: a tool may not be named `transfer_to_agent`: that is the tool agentctl gives an agent to hand the conversation to another agent, which would hide it (its calls would never reach it); rename the tool (from toolset `named`) [reserved-name]',
    );
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('gets two tools named `shell`');

    // Excluded on the server's side, neither is a tool of the agent: validate --connect passes.
    const fixed = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ builtin: shell }, { toolset: named }]', [{ name: 'echo', arguments: {} }])}---
kind: toolset
name: named
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, echo, shell, transfer_to_agent] }
exclude: [shell, transfer_to_agent]
`,
    });
    const clean = await agentctl(['validate', '--connect'], { cwd: fixed });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
  });

  it('validate --connect reports an approval rule naming a tool the toolset does not give, as run refuses it', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ toolset: named }]', [
        { name: 'docs_echo', arguments: {} },
      ]).replace(
        'tools: [{ toolset: named }]',
        'tools: [{ toolset: named }]\napproval:\n  deny: [docs_ecoh]',
      )}---
kind: toolset
name: named
prefix: docs_
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, echo] }
`,
    });
    const message =
      'agents/main.yaml:7:10: error: approval.deny[0] names `docs_ecoh`, which is not a tool of this agent (tools: docs_echo); did you mean `docs_echo`?';
    const validate = await agentctl(['validate', '--connect'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(message);
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('approval.deny[0] names `docs_ecoh`');
  });
});
