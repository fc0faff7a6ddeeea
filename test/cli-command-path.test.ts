import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

describe('a program named by a path that does not exist', () => {
  it('is an error for an MCP server, which run cannot start, and a warning for a command tool', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: toolset
name: local
mcp: { command: ./servers/missing.js }
---
kind: agent
name: a
model: offline/echo
tools: [{ toolset: local }]
---
kind: tool
name: deploy
description: Deploys
parameters: { type: object, properties: {} }
command: { argv: [./scripts/deploy.sh] }
---
kind: tool
name: found
description: Exists beside its file
parameters: { type: object, properties: {} }
command: { argv: [./scripts/here.sh] }
`,
      'agents/scripts/here.sh': '#!/bin/sh\necho here\n',
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      [
        "agents/a.yaml:3:17: error: the MCP server's command `./servers/missing.js` does not exist (a relative one is taken from the project folder), so the server cannot start [command-path]",
        "agents/a.yaml:14:19: warning: the command `./scripts/deploy.sh` does not exist (a relative one is taken from the tool's `cwd`, by default its file's folder); every call would fail [command-path]",
        '1 error, 1 warning',
        '',
      ].join('\n'),
    );
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('./servers/missing.js');
  });

  it('is an error for an MCP server whose file is not executable, as run cannot start it', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: toolset
name: local
mcp: { command: ./servers/server.js }
---
kind: agent
name: a
model: offline/echo
tools: [{ toolset: local }]
`,
      'servers/server.js': '#!/usr/bin/env node\n',
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      "agents/a.yaml:3:17: error: the MCP server's command `./servers/server.js` is not executable (`chmod +x` it, or start it through its interpreter: `command: node, args: [...]`), so the server cannot start [command-path]",
    );
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('`./servers/server.js` is not executable');
  });
});
