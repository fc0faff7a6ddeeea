import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { FILESYSTEM } from './support/mcp-servers.js';

afterAll(removeTempDirs);

describe("an MCP server's arguments written into `command`", () => {
  it('is refused by validate and run alike at the command, showing the `args` form', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: toolset
name: docs
mcp: { command: "npx -y some-pkg" }
---
kind: toolset
name: files
mcp: { command: "node ./servers/fs.js '@scope/a pkg'", args: [--verbose] }
---
kind: agent
name: a
model: offline/echo
tools: [{ toolset: docs }, { toolset: files }]
`,
    });
    const expected = [
      "agents/a.yaml:3:17: error: the MCP server's command `npx -y some-pkg` holds its arguments too, but it is started without a shell, so the whole text would be looked up as one program and not be found; put the program in `command` and each argument in `args`: `mcp: { command: npx, args: [-y, some-pkg] }` [command-args]",
      "agents/a.yaml:7:17: error: the MCP server's command `node ./servers/fs.js '@scope/a pkg'` holds its arguments too, but it is started without a shell, so the whole text would be looked up as one program and not be found; put the program in `command` and each argument in `args`: `mcp: { command: node, args: [./servers/fs.js, \"@scope/a pkg\", --verbose] }` [command-args]",
    ];
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe([...expected, '2 errors, 0 warnings', ''].join('\n'));
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${expected[0]}\n${expected[1]}\n`);
    expect(run.stdout).toBe('');
  });

  it('names the `args` form when the command comes from a variable, at start', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: toolset
name: docs
mcp: { command: "\${SERVER}" }
---
kind: agent
name: a
model: offline/echo
tools: [{ toolset: docs }]
`,
    });
    const check = await agentctl(['validate', '--connect'], { cwd: dir, env: { SERVER: 'npx -y some-pkg' } });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'command "npx -y some-pkg" was not found (it is started without a shell: put the program in `command` and each argument in `args: [...]`)',
    );
  });

  it('still starts a server whose path really has spaces', async () => {
    const dir = await tempProject({
      'my servers/fs server': `#!/bin/sh\nexec "${process.execPath}" "${FILESYSTEM}" "$@"\n`,
      'agents/a.yaml': `kind: toolset
name: docs
mcp: { command: "./my servers/fs server", args: [.] }
include: [list_allowed_directories]
---
kind: agent
name: a
model: offline/auto
tools: [{ toolset: docs }]
`,
    });
    await chmod(join(dir, 'my servers/fs server'), 0o755);
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.stdout).toBe('✓ no problems\n');
    expect(check.code).toBe(0);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Allowed directories');
  });
});
