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
kind: toolset
name: padded
mcp: { command: " npx " }
---
kind: agent
name: a
model: offline/echo
tools: [{ toolset: docs }, { toolset: files }, { toolset: padded }]
`,
    });
    const expected = [
      "agents/a.yaml:3:17: error: the MCP server's command `npx -y some-pkg` holds its arguments too, but it is started without a shell, so the whole text would be looked up as one program and not be found; put the program in `command` and each argument in `args`: `mcp: { command: npx, args: [-y, some-pkg] }` [command-args]",
      "agents/a.yaml:7:17: error: the MCP server's command `node ./servers/fs.js '@scope/a pkg'` holds its arguments too, but it is started without a shell, so the whole text would be looked up as one program and not be found; put the program in `command` and each argument in `args`: `mcp: { command: node, args: [./servers/fs.js, \"@scope/a pkg\", --verbose] }` [command-args]",
      "agents/a.yaml:11:17: error: the MCP server's command ` npx ` has spaces around the program's name, which would be looked up as written and not be found: `command: npx` [command-args]",
    ];
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe([...expected, '3 errors, 0 warnings', ''].join('\n'));
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

  it("is refused for a command tool's argv[0] too, with the argv to write; a script whose path has spaces runs", async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: tool
name: greet
description: Greets
parameters: { type: object, properties: {} }
command: { argv: ["echo hello there", again] }
needs_approval: false
---
kind: tool
name: spaced
description: Runs a script in a folder with a space
parameters: { type: object, properties: {} }
command: { argv: ["./my scripts/say hi.sh"] }
needs_approval: false
---
kind: agent
name: a
model: offline/auto
tools: [greet]
---
kind: agent
name: b
model: offline/auto
tools: [spaced]
`,
      'agents/my scripts/say hi.sh': '#!/bin/sh\necho said hi\n',
    });
    await chmod(join(dir, 'agents/my scripts/say hi.sh'), 0o755);
    const expected =
      'agents/a.yaml:5:19: error: the program `echo hello there` holds its arguments too, but a command tool runs its argv without a shell, so every call would fail to find it; give each word its own element: `argv: [echo, hello, there, again]` [command-args]';
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(`${expected}\n1 error, 0 warnings\n`);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(expected);
    const spaced = await agentctl(['run', 'b', 'hi'], { cwd: dir });
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(spaced.stdout).toContain('said hi');
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
