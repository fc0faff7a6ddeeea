import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs } from '../support/cli.js';
import {
  alive,
  probeProject,
  resultsByCall,
  runMain,
  scriptedAgent,
  scriptedTurns,
  toolResults,
} from './probe-project.js';

// The probes of issue 15, each through the real CLI on the offline script model: a model-chosen
// argument must not get past what the docs promise.

const pids: number[] = [];
let server: Server;
let base = '';
const seen: Array<{ url: string; headers: Record<string, unknown> }> = [];

beforeAll(async () => {
  // Echoes the request (path and headers), as a careless API does.
  server = createServer((req, res) => {
    const record = { url: req.url ?? '', headers: req.headers };
    seen.push(record);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(record));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  server.close();
  await removeTempDirs();
});

const WRITE_TOOL = `
kind: tool
name: c_write
description: Writes a note to a file
parameters:
  type: object
  properties: { path: { type: string }, note: { type: string } }
  required: [path, note]
command:
  argv: [sh, -c, 'printf %s "$2" > "$1"', sh, "{{ args.path }}", "{{ args.note }}"]
`;

describe.concurrent('approval rules name the argument they match', () => {
  it('refuses --allow TOOL:GLOB on a tool with two string arguments (usage error, nothing runs)', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[c_write]', [
        { name: 'c_write', arguments: { path: 'elsewhere.out', note: 'notes.txt' } },
      ])}---${WRITE_TOOL}`,
    });
    const { code, stderr } = await runMain(dir, ['--allow', 'c_write:*.txt']);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('c_write:ARG=GLOB');
    await expect(readFile(join(dir, 'agents/elsewhere.out'), 'utf8')).rejects.toThrow();
  });

  it('matches --allow TOOL:ARG=GLOB on that argument only', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[c_write]', [
        { name: 'c_write', arguments: { path: 'elsewhere.out', note: 'notes.txt' } },
      ])}---${WRITE_TOOL}`,
    });
    const paused = await runMain(dir, ['--allow', 'c_write:path=*.txt']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    const allowed = await runMain(dir, ['--allow', 'c_write:note=*.txt']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(await readFile(join(dir, 'agents/elsewhere.out'), 'utf8')).toBe('notes.txt');
  });

  it('does not find inherited properties: constructor=* does not approve a call without it', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[c_write]', [
        { name: 'c_write', arguments: { path: 'proto.out', note: 'x' } },
      ])}---${WRITE_TOOL}`,
    });
    const { code, stderr, events } = await runMain(dir, ['--allow', 'c_write:constructor=*']);
    expect(code, stderr).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    await expect(readFile(join(dir, 'agents/proto.out'), 'utf8')).rejects.toThrow();
  });
  it('refuses --allow on the command of the shell built-in (usage error)', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: shell }]', [
        { name: 'shell', arguments: { command: 'ls; touch pwned' } },
      ]),
    });
    const { code, stderr } = await runMain(dir, ['--allow', 'shell:command=ls*']);
    expect(code).toBe(2);
    expect(stderr).toContain('would match a shell script');
    await expect(readFile(join(dir, 'pwned'))).rejects.toThrow();
  });

  it('matches a number argument on its canonical form (n=5 matches 5, not 50)', async () => {
    const tool = `
kind: tool
name: num
parameters: { type: object, properties: { n: { type: integer } }, required: [n] }
command: { argv: [echo, "n={{ args.n }}"] }
`;
    const five = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[num]', [{ name: 'num', arguments: { n: 5 } }])}---${tool}`,
    });
    const fifty = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[num]', [{ name: 'num', arguments: { n: 50 } }])}---${tool}`,
    });
    const [ran, asked] = await Promise.all([
      runMain(five, ['--allow', 'num:n=5']),
      runMain(fifty, ['--allow', 'num:n=5']),
    ]);
    expect(toolResults(ran.events)[0]).toMatchObject({ content: 'n=5' });
    expect(asked.events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
  });

  it('a rule naming a tool the agent lacks (a typo in deny) is an error at validate and run; nothing runs', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[c_write]', [
        { name: 'c_write', arguments: { path: 'typo.out', note: 'written' } },
      ]).replace('tools: [c_write]', 'tools: [c_write]\napproval: { deny: [c_wirte] }')}---${WRITE_TOOL}`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    const message =
      'agents/main.yaml:6:20: error: approval.deny[0] names `c_wirte`, which is not a tool of this agent (tools: c_write); did you mean `c_write`?';
    expect(validate.stdout).toContain(message);
    const run = await runMain(dir, ['--approve-all']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    await expect(readFile(join(dir, 'agents/typo.out'))).rejects.toThrow();
  });

  it('--allow reaches the tools of an agent used as a tool; a typo in --allow is bad usage (exit 2)', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ agent: helper }]', [
        { name: 'helper', arguments: { request: 'read it' } },
      ])}---
kind: agent
name: helper
description: Reads notes
model: helper-script
tools: [c_read]
---
kind: model
name: helper-script
provider: offline
model: script
script:
  - tool_calls: [{ id: read, name: c_read, arguments: { path: note.txt } }]
  - text: read
---
kind: tool
name: c_read
description: Prints a note
parameters: { type: object, properties: { path: { type: string } }, required: [path] }
command: { argv: [cat, "{{ args.path }}"] }
`,
      'agents/note.txt': 'the note',
    });
    const typo = await runMain(dir, ['--allow', 'c_raed']);
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stderr).toContain(
      '--allow c_raed: no agent of this run has a tool named `c_raed` (tools: helper, c_read); did you mean `c_read`?',
    );
    const allowed = await runMain(dir, ['--allow', 'c_read:*.txt']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(toolResults(allowed.events).find((r) => r.name === 'c_read')?.content).toBe('the note');
    expect(allowed.events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('refuses at validate a YAML rule on an argument the tool does not have', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: offline/echo
tools: [c_write]
approval: { allow: [{ tool: c_write, args: { constructor: "*" } }] }
---${WRITE_TOOL}`,
    });
    const { code, stdout } = await agentctl(['validate'], { cwd: dir });
    expect(code).toBe(1);
    expect(stdout).toContain('c_write has no argument `constructor` (its arguments: path, note)');
  });
});

describe.concurrent('once-per-session approval', () => {
  it('asks about the first call that would run: an earlier call refused by its schema approved nothing', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[c_write]\napproval: { tools: { c_write: once-per-session } }', [
        'tool_calls: [{ id: bad, name: c_write, arguments: { path: once.out } }]',
        'tool_calls: [{ id: good, name: c_write, arguments: { path: once.out, note: unasked } }]',
        'tool_calls: [{ id: again, name: c_write, arguments: { path: once.out, note: second } }]',
        'text: done',
      ])}---${WRITE_TOOL}`,
    });
    const paused = await runMain(dir);
    expect(paused.code, paused.stderr).toBe(0);
    expect(toolResults(paused.events).map((r) => r.content)).toEqual([
      "Invalid arguments for c_write: arguments must have required property 'note'. Fix the arguments and call again.",
    ]);
    expect(paused.events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    await expect(readFile(join(dir, 'agents/once.out'), 'utf8')).rejects.toThrow();
    // Once approved, the next call of the tool runs without asking.
    const sessionId = /session ([\w-]+)/.exec(paused.stderr)?.[1] ?? '';
    const resumed = await agentctl(['run', 'main', '--session', sessionId, '--approve', 'good', '--json'], {
      cwd: dir,
      timeoutMs: 40_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readFile(join(dir, 'agents/once.out'), 'utf8')).toBe('second');
  });
});

describe.concurrent('command tools are not a shell', () => {
  it('refuses a template inside a sh -c script at validate, with file:line:col and the fix', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[shell]', [{ name: 'shell', arguments: { cmd: 'ls . ; touch pwned' } }])}---
kind: tool
name: shell
parameters: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
command:
  argv: [sh, -c, "{{ args.cmd }}"]
`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    const out = validate.stdout + validate.stderr;
    expect(out).toMatch(/agents\/main\.yaml:\d+:\d+/);
    expect(out).toContain('"$1"');
    const run = await runMain(dir, ['--approve-all']);
    expect(run.code).toBe(1);
    await expect(readFile(join(dir, 'agents/pwned'))).rejects.toThrow();
  });

  it('refuses a template inside a bash -c script too', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: tool
name: shell
parameters: { type: object, properties: { cmd: { type: string } } }
command:
  argv: [/bin/bash, -lc, "echo {{ args.cmd }}"]
`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain('"$1"');
  });

  it('finds the script behind a wrapper or an option with a value: env sh -c, bash -o pipefail -c, bash -c -e', async () => {
    const tool = (name: string, argv: string) => `---
kind: tool
name: ${name}
description: Counts a word
parameters: { type: object, properties: { word: { type: string } }, required: [word] }
needs_approval: false
command: { argv: ${argv} }
`;
    const yaml = `${scriptedAgent('[t_env, t_pipefail, t_late]', [
      { name: 't_env', arguments: { word: 'x; touch pwned_env' } },
      { name: 't_pipefail', arguments: { word: 'x; touch pwned_pipefail' } },
      { name: 't_late', arguments: { word: 'x; touch pwned_late' } },
    ])}${tool('t_env', `[env, sh, -c, 'echo {{ args.word }}']`)}${tool(
      't_pipefail',
      `[bash, -o, pipefail, -c, 'echo {{ args.word }} | wc -c']`,
    )}${tool('t_late', `[timeout, "5", bash, -c, -e, 'echo {{ args.word }}']`)}`;
    const dir = await probeProject({ 'agents/main.yaml': yaml });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    const lines = yaml.split('\n');
    const found = [
      ...(validate.stdout + validate.stderr).matchAll(
        /main\.yaml:(\d+):(\d+): error: .*inside the (\w+) script/g,
      ),
    ];
    // Each error is at the script element itself: its line and column.
    expect(found.map((m) => [Number(m[1]), Number(m[2]), m[3]])).toEqual(
      ['t_env', 't_pipefail', 't_late'].map((name, i) => {
        const line = lines.indexOf(`name: ${name}`) + 5;
        return [line, lines[line - 1].indexOf("'echo") + 1, i === 0 ? 'sh' : 'bash'];
      }),
    );
    const run = await runMain(dir);
    expect(run.code).toBe(1);
    for (const name of ['pwned_env', 'pwned_pipefail', 'pwned_late']) {
      await expect(readFile(join(dir, 'agents', name))).rejects.toThrow();
      await expect(readFile(join(dir, name))).rejects.toThrow();
    }
  });

  it('refuses the docs pattern allow { tool: shell, args: { cmd: "ls *" } } on a shell string', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: offline/echo
tools: [shell]
approval: { allow: [{ tool: shell, args: { cmd: "ls *" } }] }
---
kind: tool
name: shell
parameters: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
command:
  argv: [sh, -c, "{{ args.cmd }}"]
`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toMatch(/shell script/);
  });

  it('refuses a templated argv[0]: the model must not choose the program', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: tool
name: anything
parameters: { type: object, properties: { program: { type: string } } }
command:
  argv: ["{{ args.program }}", --help]
`,
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toMatch(/agents\/main\.yaml:5:\d+/);
    expect(validate.stdout + validate.stderr).toContain('argv[0]');
  });

  it('refuses a model argument that starts with "-" (it would be an option of the program)', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[show]', [{ name: 'show', arguments: { file: '--version' } }])}---
kind: tool
name: show
needs_approval: false
parameters: { type: object, properties: { file: { type: string } }, required: [file] }
command:
  argv: [cat, "{{ args.file }}"]
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [result] = toolResults(events);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('starts with "-"');
    expect(result.content).not.toMatch(/coreutils|GNU/);
  });

  it('passes a "-" argument when the parameter opts in with allow_dash', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[say]', [{ name: 'say', arguments: { n: '-5' } }])}---
kind: tool
name: say
needs_approval: false
parameters: { type: object, properties: { n: { type: string } }, required: [n] }
command:
  argv: [echo, "{{ args.n }}"]
  allow_dash: [n]
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    expect(toolResults(events)[0]).toMatchObject({ content: '-5' });
  });
});

/** YAML lines added to {@link runScript}'s tool, its `command`, and the agent's `limits`. */
interface ScriptSettings {
  tool?: string;
  command?: string;
  limits?: string;
  pidFile?: string;
}

/**
 * Runs agent `main` calling a command tool `job` (no arguments, no approval) that runs `script`
 * with `sh -c`. Returns the run and the pid the script wrote to `pidFile` (default
 * grandchild.pid), if any; a pid still alive after the suite is killed.
 */
async function runScript(script: string, settings: ScriptSettings = {}) {
  const { tool = '', command = '', limits = '', pidFile = 'grandchild.pid' } = settings;
  const agent = scriptedAgent('[job]', [{ name: 'job', arguments: {} }]);
  const dir = await probeProject({
    'agents/main.yaml': `${limits ? agent.replace('instruction:', `limits: ${limits}\ninstruction:`) : agent}---
kind: tool
name: job
needs_approval: false
${tool}
command:
  argv: [sh, -c, ${JSON.stringify(script)}]
  ${command}
`,
  });
  const run = await runMain(dir);
  const written = await readFile(join(dir, 'agents', pidFile), 'utf8').catch(() => '');
  const pid = written ? Number(written) : undefined;
  if (pid) pids.push(pid);
  return { ...run, pid, result: toolResults(run.events)[0] };
}

describe.concurrent('command tools do not outlive their call', () => {
  it('returns when the program exits, though a grandchild holds stdout open, and kills that grandchild', async () => {
    const { code, stderr, result, ms, pid } = await runScript(
      'sleep 48 & echo $! > grandchild.pid; echo started',
      { tool: 'timeout: 30s' },
    );
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ content: 'started' });
    expect(ms).toBeLessThan(25_000);
    expect(alive(pid as number)).toBe(false);
  });

  it('kills the whole process group on timeout', async () => {
    const { code, stderr, result, ms, pid } = await runScript(
      'sleep 47 & echo $! > grandchild.pid; sleep 46',
      { tool: 'timeout: 1s' },
    );
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ isError: true });
    expect(ms).toBeLessThan(25_000);
    expect(alive(pid as number)).toBe(false);
  });

  it('kills the process group when the run is cancelled by its own time limit', async () => {
    const { stderr, ms, pid } = await runScript('sleep 45 & echo $! > grandchild.pid; sleep 44', {
      limits: '{ timeout: 4s }',
    });
    expect(ms, stderr).toBeLessThan(25_000);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid as number)).toBe(false);
  });

  it('does not wait on a descendant that left the process group (setsid) and holds stdout', async () => {
    const { code, stderr, result, ms, pid } = await runScript(
      'setsid sh -c "echo \\$\\$ > escaped.pid; exec sleep 43" & sleep 0.3; echo started',
      { tool: 'timeout: 30s', pidFile: 'escaped.pid' },
    );
    expect(pid).toBeGreaterThan(0);
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ content: 'started' });
    expect(ms).toBeLessThan(25_000);
  });

  it('stops a program that writes more than max_output_bytes, quickly', async () => {
    const { code, stderr, result, ms } = await runScript('yes aaaaaaaaaaaaaaaaaaaaaaaa', {
      command: 'max_output_bytes: 10000',
    });
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toContain('max_output_bytes');
    expect(ms).toBeLessThan(25_000);
  });
});

describe.concurrent('secrets stay secret', () => {
  const SECRET = 'sk-probe-4f9a1c2e7b';

  async function secretProject(tool: string) {
    return probeProject({
      'agents/main.yaml': `${scriptedAgent('[echo_api]', [{ name: 'echo_api', arguments: { q: 'hi' } }])}---${tool}`,
    });
  }

  async function expectNowhere(dir: string, stdout: string) {
    expect(stdout).not.toContain(SECRET);
    const session = (JSON.parse(stdout.split('\n')[0]) as { sessionId?: string }).sessionId;
    const list = await agentctl(['sessions', 'list', '--json'], { cwd: dir });
    const id = session ?? (JSON.parse(list.stdout) as Array<{ id: string }>)[0].id;
    const show = await agentctl(['sessions', 'show', id, '--json'], { cwd: dir });
    const exported = await agentctl(['sessions', 'export', id], { cwd: dir });
    expect(show.code, show.stderr).toBe(0);
    expect(exported.code, exported.stderr).toBe(0);
    expect(show.stdout).not.toContain(SECRET);
    expect(exported.stdout).not.toContain(SECRET);
    const { stdout: onDisk } = await agentctl(['sessions', 'show', id], { cwd: dir });
    expect(onDisk).not.toContain(SECRET);
    const files = await import('node:fs/promises').then((fs) =>
      fs.readdir(join(dir, '.agentctl'), { recursive: true }),
    );
    for (const file of files) {
      const text = await readFile(join(dir, '.agentctl', file), 'utf8').catch(() => '');
      expect(text, file).not.toContain(SECRET);
    }
  }

  it('scrubs a header secret that the server echoes from run --json, sessions and exports', async () => {
    const dir = await secretProject(`
kind: tool
name: echo_api
needs_approval: false
parameters: { type: object, properties: { q: { type: string } } }
http:
  url: ${base}/echo?q={{ args.q }}
  headers: { Authorization: "Bearer \${PROBE_SECRET}" }
`);
    const { code, stderr, stdout, events } = await runMain(dir, ['--record', 'cassette.yaml'], {
      PROBE_SECRET: SECRET,
    });
    expect(code, stderr).toBe(0);
    expect(toolResults(events)[0].content).toContain('Bearer ***');
    const cassette = await readFile(join(dir, 'cassette.yaml'), 'utf8');
    expect(cassette).toContain('Bearer ***');
    expect(cassette).not.toContain(SECRET);
    expect(seen.some((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    await expectNowhere(dir, stdout);
  });

  it('scrubs an env secret that a command tool prints, and one a module tool returns', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[leak, { module: ./leak.ts }]', [
        { name: 'leak', arguments: {} },
        { name: 'leak_module', arguments: {} },
      ])}---
kind: tool
name: leak
needs_approval: false
command: { argv: [sh, -c, 'echo "token is $PROBE_SECRET"'], env: [PROBE_SECRET] }
`,
      'agents/leak.ts': `export default { name: 'leak_module', description: 'leaks', parameters: { type: 'object', properties: {} }, execute: () => ({ token: process.env.PROBE_SECRET }) };\n`,
    });
    const { code, stderr, stdout, events } = await runMain(dir, [], { PROBE_SECRET: SECRET });
    expect(code, stderr).toBe(0);
    expect(
      toolResults(events)
        .map((r) => r.content)
        .sort(),
    ).toEqual(['token is ***', '{"token":"***"}']);
    await expectNowhere(dir, stdout);
  });

  it('scrubs a URL secret that the server echoes', async () => {
    const dir = await secretProject(`
kind: tool
name: echo_api
needs_approval: false
parameters: { type: object, properties: { q: { type: string } } }
http:
  url: ${base}/echo?key=\${PROBE_SECRET}&q={{ args.q }}
`);
    const { code, stderr, stdout, events } = await runMain(dir, [], { PROBE_SECRET: SECRET });
    expect(code, stderr).toBe(0);
    expect(toolResults(events)[0].content).toContain('key=***');
    await expectNowhere(dir, stdout);
  });
});

describe.concurrent('HTTP URL templates', () => {
  it('does not let p=".." walk up the path', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[api]', [{ name: 'api', arguments: { p: '..' } }])}---
kind: tool
name: api
needs_approval: false
parameters: { type: object, properties: { p: { type: string } }, required: [p] }
http:
  url: ${base}/api/v1/{{ args.p }}?probe=dotdot
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    expect(seen.some((r) => r.url.startsWith('/api/?') || r.url === '/api/')).toBe(false);
    const [result] = toolResults(events);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('path segment');
  });

  it('keeps "/" inside one path segment', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[api]', [{ name: 'api', arguments: { p: '../../admin' } }])}---
kind: tool
name: api
needs_approval: false
parameters: { type: object, properties: { p: { type: string } }, required: [p] }
http:
  url: ${base}/api/v1/{{ args.p }}?probe=slash
`,
    });
    const { code, stderr } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const hit = seen.find((r) => r.url.endsWith('probe=slash'));
    expect(hit?.url).toBe('/api/v1/..%2F..%2Fadmin?probe=slash');
  });
});

describe.concurrent('filesystem tools stay in their folder', () => {
  it('edit_file never writes through a link, as write_file does not: a rule on drafts/* edits only drafts', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedAgent('[{ builtin: filesystem, root: ../data }]', [
        { name: 'edit_file', arguments: { path: 'drafts/alias.md', old_text: 'keep', new_text: 'changed' } },
        { name: 'edit_file', arguments: { path: 'drafts/missing.md', old_text: 'a', new_text: 'b' } },
        { name: 'edit_file', arguments: { path: 'drafts/note.md', old_text: 'draft', new_text: 'final' } },
      ]).replace('tools:', 'approval: { allow: ["edit_file:path=drafts/*"] }\ntools:')}`,
      'data/drafts/note.md': 'a draft',
      'data/config.md': 'keep this',
    });
    await symlink('../config.md', join(dir, 'data/drafts/alias.md'));
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    // The link leads to config.md, which drafts/* does not vouch for: asked about, not run.
    expect(resultsByCall(events)).toEqual({
      call_2: 'Tool edit_file failed: path "drafts/missing.md" does not exist',
      call_3: 'replaced 1 occurrence in drafts/note.md',
    });
    const pending = events.find((e) => e.type === 'approval_required') as
      | { pending: Array<{ call: { id: string } }> }
      | undefined;
    expect(pending?.pending.map((p) => p.call.id)).toEqual(['call_1']);
    expect(await readFile(join(dir, 'data/config.md'), 'utf8')).toBe('keep this');
    expect(await readFile(join(dir, 'data/drafts/note.md'), 'utf8')).toBe('a final');
    // Approved, it still never writes through the link.
    const session = /session ([\w-]+)/.exec(stderr)?.[1] ?? '';
    const approved = await agentctl(['run', 'main', '--session', session, '--approve', 'call_1', '--json'], {
      cwd: dir,
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(resultsByCall(parseNdjson(approved.stdout) as never)).toMatchObject({
      call_1: 'Tool edit_file failed: "drafts/alias.md" exists and is not a regular file',
    });
    expect(await readFile(join(dir, 'data/config.md'), 'utf8')).toBe('keep this');
  });

  it('reads a file whose name starts with ".." inside the folder, and still refuses "../"', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: filesystem, root: ../data }]', [
        { name: 'read_file', arguments: { path: '..notes.md' } },
        { name: 'read_file', arguments: { path: '../agentctl.yaml' } },
      ]),
      'data/..notes.md': 'dotted inside',
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    expect(resultsByCall(events)).toEqual({
      call_1: 'dotted inside',
      call_2: 'Tool read_file failed: path "../agentctl.yaml" is outside the allowed folder',
    });
  });

  it('refuses ".." and a symbolic link that leads out', async () => {
    const outside = await probeProject({ 'secret.txt': 'outside-secret' });
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: read_file, root: ../data }]', [
        { name: 'read_file', arguments: { path: '../../secret.txt' } },
        { name: 'read_file', arguments: { path: 'link/secret.txt' } },
        { name: 'read_file', arguments: { path: 'ok.txt' } },
      ]),
      'data/ok.txt': 'inside',
    });
    await import('node:fs/promises').then((fs) => fs.symlink(outside, join(dir, 'data/link')));
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = toolResults(events);
    expect(results.map((r) => r.isError ?? false)).toEqual([true, true, false]);
    expect(JSON.stringify(events)).not.toContain('outside-secret');
    expect(results[2].content).toBe('inside');
  });
});

describe.concurrent('filesystem tools never wait on a FIFO', () => {
  it('grep stops a regular expression that backtracks without end; the run goes on', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: filesystem, root: ../data }]', [
        // A lookahead keeps it out of V8's linear-time engine: it backtracks until stopped.
        { name: 'grep', arguments: { pattern: '(a+)+(?=b)', regex: true } },
        { name: 'grep', arguments: { pattern: 'TODO\\(\\w+\\)', regex: true } },
        // The linear-time engine finishes this one at once.
        { name: 'grep', arguments: { pattern: '(a+)+b', regex: true } },
      ]),
      'data/long.txt': `${'a'.repeat(48)}!\n// TODO(ann): ship it\n`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    expect(resultsByCall(events)).toEqual({
      call_1:
        'Tool grep failed: the regular expression ran for more than 2 s and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack without end)',
      call_2: 'long.txt:2: // TODO(ann): ship it',
      call_3: '[no match]',
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('refuses a FIFO to read_file and edit_file, and the run ends (a blocked open kept the process alive)', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: filesystem, root: ../data }]', [
        { name: 'read_file', arguments: { path: 'pipe' } },
        { name: 'edit_file', arguments: { path: 'pipe', old_text: 'a', new_text: 'b' } },
        { name: 'grep', arguments: { pattern: 'inside' } },
      ]),
      'data/ok.txt': 'inside',
    });
    execFileSync('mkfifo', [join(dir, 'data/pipe')]);
    const { code, stderr, events } = await runMain(dir, ['--approve-all']);
    expect(code, stderr).toBe(0);
    expect(resultsByCall(events)).toEqual({
      call_1: 'Tool read_file failed: "pipe" is not a regular file',
      call_2: 'Tool edit_file failed: "pipe" exists and is not a regular file',
      call_3: 'ok.txt:1: inside',
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });
});

describe.concurrent('filesystem tools on hostile names and links', () => {
  it('quotes a name holding a newline, so it cannot pass for another entry; names a link loop, a folder path given to write_file and a name too long without the absolute path', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: filesystem, root: ../data }]', [
        { name: 'list_dir', arguments: {} },
        { name: 'find_files', arguments: { pattern: '*.txt' } },
        { name: 'grep', arguments: { pattern: 'marker' } },
        { name: 'read_file', arguments: { path: 'loop' } },
        { name: 'read_file', arguments: { path: 'a.txt (1 bytes)\nsecret.txt' } },
        { name: 'write_file', arguments: { path: 'made/', content: 'x' } },
        { name: 'write_file', arguments: { path: `${'n'.repeat(300)}.txt`, content: 'x' } },
        { name: 'read_file', arguments: { path: 'sock' } },
      ]),
      'data/a.txt (1 bytes)\nsecret.txt': 'marker',
    });
    await symlink('loop', join(dir, 'data/loop'));
    const socket = createNetServer();
    await new Promise<void>((resolve) => socket.listen(join(dir, 'data/sock'), resolve));
    const { code, stderr, events } = await runMain(dir, ['--approve-all']).finally(() => socket.close());
    expect(code, stderr).toBe(0);
    expect(resultsByCall(events)).toEqual({
      call_1: '"a.txt (1 bytes)\\nsecret.txt" (6 bytes)\nloop@\nsock',
      call_2: '"a.txt (1 bytes)\\nsecret.txt"',
      call_3: '"a.txt (1 bytes)\\nsecret.txt":1: marker',
      call_4: 'Tool read_file failed: path "loop" cannot be read: it is a loop of symbolic links',
      call_5: 'marker',
      // Resolved, made/ lost its slash: a file called made was written.
      call_6: 'Tool write_file failed: path "made/" names a folder, not a file',
      // Not the system's refusal quoting the temporary file.
      call_7: `Tool write_file failed: path "${'n'.repeat(300)}.txt" has a name longer than 255 bytes`,
      // Not ENXIO quoting the descriptor path it was opened by.
      call_8: 'Tool read_file failed: "sock" is not a regular file',
    });
    expect(existsSync(join(dir, 'data/made'))).toBe(false);
  });
});

describe.concurrent('module tools that misbehave', () => {
  it('escape sequences in a result or an argument reach the terminal as \\u001b text, not as control codes', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ module: ./loud.js }]', [
        { name: 'loud', arguments: { note: '\u001b[2Khidden\u202eevil' } },
      ]),
      'agents/loud.js': `export default {
  name: 'loud',
  description: 'Prints escape sequences',
  parameters: { type: 'object', properties: { note: { type: 'string' } } },
  execute: async () => '\\u001b]52;c;cHduZWQ=\\u0007\\u001b[2Jcleared',
};
`,
    });
    const run = await agentctl(['run', 'main', 'go'], { cwd: dir, timeoutMs: 40_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('loud({"note":"\\u001b[2Khidden\\u202eevil"})');
    expect(run.stderr).toContain('← loud: \\u001b]52;c;cHduZWQ=\\u0007\\u001b[2Jcleared');
    const session = /session ([\w-]+)/.exec(run.stderr)?.[1] ?? '';
    const show = await agentctl(['sessions', 'show', session], { cwd: dir });
    for (const out of [run.stdout, run.stderr, show.stdout]) {
      for (const raw of ['\u001b', '\u0007', '\u202e']) expect(out.includes(raw)).toBe(false);
    }
    expect(show.stdout).toContain('\\u001b]52;c;cHduZWQ=');
  });

  it('a value that is not JSON (a cycle) is an error result naming why, not "[object Object]"', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ module: ./cyclic.js }]', [{ name: 'cyclic', arguments: {} }]),
      'agents/cyclic.js': `export default {
  name: 'cyclic',
  description: 'Returns an object that holds itself',
  parameters: { type: 'object', properties: {} },
  execute: async () => { const value = { name: 'loop' }; value.self = value; return value; },
};
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [result] = toolResults(events);
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_EXECUTION_ERROR' });
    expect(result.content).toMatch(
      /^Tool cyclic returned a value that is not JSON: Converting circular structure to JSON/,
    );
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('times out, the run completes, and agentctl exits though the tool left a timer running', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ module: ./hangs.js }]', [
        { name: 'hangs', arguments: {} },
      ]).replace('instruction: Use the tools.', 'instruction: Use the tools.\nlimits: { tool_timeout: 1s }'),
      'agents/hangs.js': `export default {
  name: 'hangs',
  description: 'Never answers, and leaves a timer behind',
  parameters: { type: 'object', properties: {} },
  execute: () => new Promise(() => { setInterval(() => {}, 1000); }),
};
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    expect(toolResults(events).map((r) => r.content)).toEqual(['tool hangs timed out after 1000 ms']);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'done' });
  });
});
