import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

describe('limits.timeout of zero', () => {
  it('is refused by validate and run, written as is or through ${VAR}, instead of ending every run at its start', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: agent
name: zero
model: offline/echo
limits: { timeout: 0s }
---
kind: agent
name: later
model: offline/echo
limits: { timeout: "\${RUN_LIMIT:-0s}" }
`,
    });
    const check = await agentctl(['validate'], { cwd: dir, env: { RUN_LIMIT: undefined } });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      [
        'agents/a.yaml:4:20: error: `timeout` is not valid; expected a duration longer than zero: milliseconds as a number, or a string such as "500ms", "30s", "2m", "1h". [schema]',
        'agents/a.yaml:9:20: error: limits.timeout: must be longer than zero [env-values]',
        '2 errors, 0 warnings',
        '',
      ].join('\n'),
    );
    const zero = await agentctl(['run', 'zero', 'hi'], { cwd: dir });
    expect(zero.code).toBe(1);
    expect(zero.stderr).not.toContain('session ');
    const later = await agentctl(['run', 'later', 'hi'], { cwd: dir, env: { RUN_LIMIT: undefined } });
    expect(later.code).toBe(1);
    expect(later.stderr).toContain('limits.timeout: must be longer than zero');
    const set = await agentctl(['run', 'later', 'hi'], { cwd: dir, env: { RUN_LIMIT: '30s' } });
    expect(set.code, set.stderr).toBe(0);
  });
});

describe('a timeout of zero on a tool, a toolset, a model or a built-in', () => {
  it('is refused by validate at its line, instead of failing every call at once', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: model
name: m
provider: offline
model: echo
timeout: 0s
---
kind: tool
name: nap
description: naps
parameters: { type: object, properties: {} }
command: { argv: [sleep, "1"] }
timeout: 0
---
kind: toolset
name: docs
mcp: { command: node, args: [server.js] }
timeout: 0ms
start_timeout: 0s
---
kind: agent
name: a
model: m
tools: [nap]
limits: { tool_timeout: "\${TOOL_LIMIT:-0s}" }
---
kind: agent
name: b
model: offline/echo
tools: [{ builtin: shell, options: { timeout: 0s } }]
limits: { tool_timeout: 0s }
`,
    });
    const check = await agentctl(['validate'], { cwd: dir, env: { TOOL_LIMIT: undefined } });
    expect(check.code).toBe(1);
    const positive = 'expected a duration longer than zero';
    for (const [where, field] of [
      ['5:10', 'timeout'],
      ['12:10', 'timeout'],
      ['17:10', 'timeout'],
      ['18:16', 'start_timeout'],
      ['30:25', 'tool_timeout'],
    ])
      expect(check.stdout).toMatch(
        new RegExp(`agents/a\\.yaml:${where}: error: \`${field}\` (is not valid; ${positive}|must be >= 1)`),
      );
    expect(check.stdout).toContain(
      'agents/a.yaml:24:25: error: limits.tool_timeout: must be longer than zero [env-values]',
    );
    // The built-in's options are checked once the kinds' schemas pass.
    const shell = await tempProject({
      'agents/b.yaml':
        'kind: agent\nname: b\nmodel: offline/echo\ntools: [{ builtin: shell, options: { timeout: 0s } }]\n',
    });
    const options = await agentctl(['validate'], { cwd: shell });
    expect(options.code).toBe(1);
    expect(options.stdout).toContain(
      `agents/b.yaml:4:47: error: built-in shell: option \`timeout\` is not valid; ${positive}`,
    );
  });
});
