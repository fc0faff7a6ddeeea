import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs } from '../support/cli.js';
import { probeProject, runMain, scriptedAgent } from './probe-project.js';

// A key passed on a program's command line (`${VAR}` in a command tool's argv or an MCP server's
// args) is a secret like one in an `env:` or a header, and so is another agent's model key that
// this run does not build: what prints it is scrubbed.

afterAll(removeTempDirs);

const SECRET = 'sk-argv-secret-4242';

describe.concurrent('secrets on a command line', () => {
  it('an MCP server that does not start is reported without the key in its args', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ toolset: keyed }]', [{ name: 'x', arguments: {} }])}---
kind: toolset
name: keyed
mcp: { command: ${JSON.stringify(process.execPath)}, args: [-e, "process.exit(3)", --api-key, "\${PROBE_KEY}"] }
`,
    });
    const run = await runMain(dir, [], { PROBE_KEY: SECRET });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('did not start');
    expect(run.stderr).toContain('--api-key ***');
    expect(run.stderr + run.stdout).not.toContain(SECRET);
    const validate = await agentctl(['validate', '--connect'], { cwd: dir, env: { PROBE_KEY: SECRET } });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).not.toContain(SECRET);
  });

  it('a command tool that prints its argv key has it scrubbed from the result, events and session', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[show]', [{ name: 'show', arguments: {} }])}---
kind: tool
name: show
description: Prints its command line
parameters: { type: object, properties: {} }
command: { argv: [echo, "token=\${PROBE_KEY}"] }
needs_approval: false
`,
    });
    const run = await runMain(dir, ['--session', 's1'], { PROBE_KEY: SECRET });
    expect(run.code, run.stderr).toBe(0);
    const result = run.events.find((e) => e.type === 'tool_result') as { content?: string } | undefined;
    expect(result?.content).toBe('token=***');
    expect(run.stdout).not.toContain(SECRET);
    const session = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    expect(session.stdout).toContain('token=***');
    expect(session.stdout).not.toContain(SECRET);
  });

  it("another agent's model key, from .env, is scrubbed from a file tool's result, though this run does not build that agent", async () => {
    const dir = await probeProject({
      '.env': `OPENAI_API_KEY=${SECRET}\n`,
      'agents/main.yaml': `${scriptedAgent('[{ builtin: filesystem, options: { allow_private: true } }]', [{ name: 'read_file', arguments: { path: '.env' } }])}---
kind: agent
name: remote
model: real
---
kind: model
name: real
provider: openai
model: gpt-4.1-mini
api_key: \${OPENAI_API_KEY}
`,
    });
    const run = await runMain(dir, ['--session', 's1']);
    expect(run.code, run.stderr).toBe(0);
    const result = run.events.find((e) => e.type === 'tool_result') as { content?: string } | undefined;
    expect(result?.content).toBe('OPENAI_API_KEY=***\n');
    expect(run.stdout).not.toContain(SECRET);
    const session = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    expect(session.stdout).not.toContain(SECRET);
  });
});
