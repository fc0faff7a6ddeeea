import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempDir } from './support/cli.js';
import { agentctlOnTerminal, NO_TERMINAL, terminalDrivers } from './support/terminal.js';

// A project whose `shell` command tool (echo, so harmless) declares nothing about approval: command
// tools ask by default. Each agent plays a script calling it, with different approval settings.
type Event = Record<string, unknown> & { type: string };

const TOOL = `kind: tool
name: shell
description: Runs a command (here it only echoes it)
parameters: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
command: { argv: [echo, "ran {{ args.cmd }}"] }
`;

/**
 * An agent named `name` whose script calls shell with each of `cmds` in one turn, then says done;
 * `then` adds one more such exchange (for a second prompt in the same session).
 */
function agent(name: string, cmds: string[], approval = '', then?: string[]): string {
  const calls = cmds.map((cmd, i) => ({ name: 'shell', arguments: { cmd }, id: `${name}_${i}` }));
  const more = (then ?? []).map((cmd, i) => ({
    name: 'shell',
    arguments: { cmd },
    id: `${name}_again_${i}`,
  }));
  const turns = [{ tool_calls: calls }, { text: 'done' }];
  if (then) turns.push({ tool_calls: more }, { text: 'done again' });
  return `kind: agent
name: ${name}
model: ${name}_model
tools: [shell]
${approval}
---
kind: model
name: ${name}_model
provider: offline
model: script
script: ${JSON.stringify(turns)}
`;
}

let project: string;
beforeAll(async () => {
  project = await tempDir('agentctl-approval-');
  await mkdir(join(project, 'agents'));
  await writeFile(join(project, 'agentctl.yaml'), 'kind: project\nname: approvals\n');
  const docs = [
    TOOL,
    agent('plain', ['ls -l']),
    agent(
      'ruled',
      ['ls -l', 'rm -rf /tmp/x'],
      'approval:\n  allow: [shell]\n  deny: [{ tool: shell, args: { cmd: "rm *" } }]',
    ),
    agent('mixed', ['ls -l', 'cat notes.txt']),
    agent('session', ['first'], 'approval: { tools: { shell: once-per-session } }', ['second']),
    agent('climb', ['notes/a.md', 'notes/../../x.md', 'notes/..'], 'approval:\n  allow: [shell:cmd=notes/*]'),
    agent('climbflag', ['notes/a.md', 'notes/../../x.md']),
  ];
  await writeFile(join(project, 'agents/all.yaml'), docs.join('---\n'));
});
afterAll(removeTempDirs);

const run = (args: string[]) => agentctl(['run', ...args], { cwd: project });
const results = (events: Event[]) =>
  Object.fromEntries(
    events.filter((e) => e.type === 'tool_result').map((e) => [e.callId, [e.isError, e.content]]),
  );

describe.concurrent('approval of tool calls through agentctl run, without a terminal', () => {
  it('a command tool with no approval settings pauses the run and does not run', async () => {
    const { code, stdout, stderr } = await run(['plain', 'list files', '--json']);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.slice(-2).map((e) => e.type)).toEqual(['approval_required', 'run_end']);
    expect(events.at(-1)).toMatchObject({ status: 'paused' });
    expect(events.at(-2)).toMatchObject({ pending: [{ call: { id: 'plain_0', name: 'shell' } }] });
    expect(results(events)).toEqual({});
  });

  it('deny wins over allow: the rm call is refused, the ls call runs, nothing waits', async () => {
    const { code, stdout, stderr } = await run(['ruled', 'clean up', '--json']);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    const got = results(events);
    expect(got.ruled_0).toEqual([false, 'ran ls -l']);
    expect(got.ruled_1[0]).toBe(true);
    expect(got.ruled_1[1]).toContain('denied by the approval policy');
    expect(events.some((e) => e.type === 'approval_required')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done' });
  });

  it('a YAML deny rule wins over --allow and over --approve-all', async () => {
    for (const flag of [['--allow', 'shell'], ['--approve-all']]) {
      const { code, stdout, stderr } = await run(['ruled', 'clean up', '--json', ...flag]);
      expect(code, stderr).toBe(0);
      const got = results(parseNdjson(stdout));
      expect(got.ruled_1[0], flag.join(' ')).toBe(true);
      expect(got.ruled_1[1]).not.toContain('ran rm');
    }
  });

  it('--allow with a tool name lets every call of it run without a terminal', async () => {
    const { code, stdout, stderr } = await run(['mixed', 'look', '--json', '--allow', 'sh*']);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(results(events)).toEqual({
      mixed_0: [false, 'ran ls -l'],
      mixed_1: [false, 'ran cat notes.txt'],
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('--allow on arguments runs the matching call and pauses on the other', async () => {
    for (const rule of ['shell:cmd=ls *', 'shell:ls*']) {
      const { code, stdout, stderr } = await run(['mixed', 'look', '--json', '--allow', rule]);
      expect(code, stderr).toBe(0);
      const events = parseNdjson(stdout);
      expect(results(events), rule).toEqual({ mixed_0: [false, 'ran ls -l'] });
      expect(events.at(-2)).toMatchObject({ pending: [{ call: { id: 'mixed_1' } }] });
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    }
  });

  it("an allow rule's glob does not reach out of its folder through `..`, in YAML or --allow", async () => {
    const yaml = await run(['climb', 'tidy', '--json']);
    expect(yaml.code, yaml.stderr).toBe(0);
    const events = parseNdjson(yaml.stdout);
    expect(results(events)).toEqual({ climb_0: [false, 'ran notes/a.md'] });
    expect(events.at(-1)).toMatchObject({ status: 'paused' });
    const pending = (events.at(-2) as { pending: Array<{ call: { id: string } }> }).pending;
    expect(pending.map((p) => p.call.id)).toEqual(['climb_1', 'climb_2']);
    const flag = await run(['climbflag', 'tidy', '--json', '--allow', 'shell:cmd=notes/*']);
    expect(flag.code, flag.stderr).toBe(0);
    const flagged = parseNdjson(flag.stdout);
    expect(results(flagged)).toEqual({ climbflag_0: [false, 'ran notes/a.md'] });
    expect(flagged.at(-2)).toMatchObject({ pending: [{ call: { id: 'climbflag_1' } }] });
  });

  it('a malformed --allow is a usage error (exit 2) naming the rule', async () => {
    const { code, stdout, stderr } = await run(['mixed', 'look', '--allow', 'bad name:x']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('--allow "bad name:x"');
  });

  it('once-per-session asks the first time only, across processes', async () => {
    const first = await run(['session', 'go', '--session', 'once', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(parseNdjson(first.stdout).at(-1)).toMatchObject({ status: 'paused' });
    const approved = await run(['session', '--session', 'once', '--approve', 'session_0', '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(results(parseNdjson(approved.stdout))).toEqual({ session_0: [false, 'ran first'] });
    // The session now holds a result of shell: the next call runs without asking.
    const later = await run(['session', 'again', '--session', 'once', '--json']);
    expect(later.code, later.stderr).toBe(0);
    const events = parseNdjson(later.stdout);
    expect(results(events)).toEqual({ session_again_0: [false, 'ran second'] });
    expect(events.some((e) => e.type === 'approval_required')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done again' });
  });
});

const driver = terminalDrivers()[0];

describe.skipIf(!driver)(`approval on a terminal (${driver?.name ?? NO_TERMINAL})`, () => {
  it('asks, showing the tool and its arguments, and runs the call on y', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'plain', 'list files'],
      [['[y/N] ', 'y\r']],
      {
        cwd: project,
      },
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('Allow shell({"cmd":"ls -l"})? [y/N] ');
    expect(screen).toContain('ran ls -l');
    expect(screen).toContain('done');
  });

  it('asks only about calls no --allow rule matches', async () => {
    const { code, screen } = await agentctlOnTerminal(
      driver!,
      ['run', 'mixed', 'look', '--allow', 'shell:cmd=ls*'],
      [
        ['[y/N] ', 'n\r'],
        ['Reason (optional): ', 'not that file\r'],
      ],
      { cwd: project },
    );
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('Allow shell({"cmd":"ls -l"})');
    expect(screen).toContain('Allow shell({"cmd":"cat notes.txt"})? [y/N] ');
    expect(screen).toContain('ran ls -l');
    expect(screen).not.toContain('ran cat');
    expect(screen).toContain('not that file');
  });
});
