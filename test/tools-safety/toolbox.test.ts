import { chmod, link, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs } from '../support/cli.js';
import { alive, probeProject, runMain, scriptedAgent, scriptedTurns, toolResults } from './probe-project.js';

// The toolbox built-ins from YAML to behaviour, through the real CLI on the offline script model.

let server: Server;
let host = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/big') {
      res.setHeader('content-type', 'text/plain');
      return res.end('x'.repeat(5000));
    }
    if (req.url === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      '<html><head><title>Menu</title><style>p{color:red}</style><script>alert(1)</script></head><body><h1>Soup &amp; bread</h1><p>Today:<br>lentil</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await removeTempDirs();
});

const byId = (events: Array<Record<string, unknown>>) =>
  Object.fromEntries(
    toolResults(events as never).map((r) => [(r as unknown as { callId: string }).callId, r]),
  );
const pausedIds = (events: Array<Record<string, unknown> & { type: string }>) =>
  (
    events.find((e) => e.type === 'approval_required') as
      | { pending?: Array<{ call: { id: string } }> }
      | undefined
  )?.pending?.map((p) => p.call.id) ?? [];

describe.concurrent('shell', () => {
  it('runs allowed simple commands, asks about the rest, refuses denied ones', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(
        '[{ builtin: shell, options: { allow: ["ls*", "echo *"], deny: ["rm *"] } }]',
        [
          { name: 'shell', arguments: { command: 'echo hi' } },
          { name: 'shell', arguments: { command: 'ls; touch pwned' } },
          { name: 'shell', arguments: { command: 'echo $(touch pwned2)' } },
          { name: 'shell', arguments: { command: 'rm -rf agents' } },
          { name: 'shell', arguments: { command: 'cat agentctl.yaml' } },
          { name: 'shell', arguments: { command: 'ls', cwd: '..' } },
          // `ls*` matches these as text, but the shell runs touch: after an assignment, and
          // through a glob it expands (lsdir/..) into a path.
          { name: 'shell', arguments: { command: 'ls=x touch pwned3' } },
          { name: 'shell', arguments: { command: 'ls*/../../../../../../../../../../usr/bin/touch pwned4' } },
          { name: 'shell', arguments: { command: "l's' -a" } },
          { name: 'shell', arguments: { command: 'ls -a lsdir' } },
          { name: 'shell', arguments: { command: 'X=1 rm -rf agents' } },
        ],
      ),
      'lsdir/keep.txt': 'kept',
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(JSON.parse(results.call_1.content)).toEqual({ exit_code: 0, stdout: 'hi\n', stderr: '' });
    expect(results.call_4).toMatchObject({ isError: true });
    expect(results.call_4.content).toContain('deny pattern "rm *"');
    expect(results.call_6).toMatchObject({ isError: true });
    expect(results.call_6.content).toContain('outside the allowed folder');
    expect(JSON.parse(results.call_10.content).stdout).toContain('keep.txt');
    expect(results.call_11).toMatchObject({ isError: true });
    expect(results.call_11.content).toContain('deny pattern "rm *"');
    // A glob in the program's place: deny cannot tell what runs, so the line is refused unasked.
    expect(results.call_8).toMatchObject({ isError: true });
    expect(results.call_8.content).toContain('cannot check the command against the deny rules');
    expect(pausedIds(events).sort()).toEqual(['call_2', 'call_3', 'call_5', 'call_7', 'call_9']);
    for (const file of ['pwned', 'pwned3', 'pwned4'])
      await expect(readFile(join(dir, file))).rejects.toThrow();
  });

  it('kills the command group at its timeout and keeps the output cap', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(
        '[{ builtin: shell, timeout: 8s, options: { allow: ["sleep*", "yes*"], max_output_bytes: 1000 } }]',
        [
          { name: 'shell', arguments: { command: 'sleep 41 & echo $! > bg.pid; sleep 40' } },
          { name: 'shell', arguments: { command: 'yes' } },
        ],
      ),
    });
    const { code, stderr, events, ms } = await runMain(dir, ['--allow', 'shell']);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(results.call_1).toMatchObject({ isError: true });
    expect(results.call_2.content).toContain('max_output_bytes');
    expect(ms).toBeLessThan(25_000);
    expect(alive(Number(await readFile(join(dir, 'bg.pid'), 'utf8')))).toBe(false);
  });

  it('validate refuses an approval rule on its command', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: offline/echo
tools: [{ builtin: shell }]
approval: { allow: ["shell:command=ls *"] }
`,
    });
    const { code, stdout } = await agentctl(['validate'], { cwd: dir });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /agents\/main\.yaml:5:\d+: error: a rule on `command` of shell would match a shell script/,
    );
  });
});

describe.concurrent('filesystem', () => {
  it('reads, lists, finds and greps inside its root; writes and edits ask first', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent('[{ builtin: filesystem, root: ../work }]', [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'list_dir', arguments: { path: '.' } },
        { name: 'find_files', arguments: { pattern: '**/*.md' } },
        { name: 'grep', arguments: { pattern: 'needle' } },
        { name: 'write_file', arguments: { path: 'new/b.txt', content: 'bee' } },
        { name: 'edit_file', arguments: { path: 'a.txt', old_text: 'alpha', new_text: 'omega' } },
      ]),
      'work/a.txt': 'alpha\n',
      'work/docs/n.md': 'a needle here\n',
    });
    const first = await runMain(dir);
    expect(first.code, first.stderr).toBe(0);
    const results = byId(first.events);
    expect(results.call_1.content).toBe('alpha\n');
    expect(results.call_2.content).toContain('a.txt');
    expect(results.call_3.content).toBe('docs/n.md');
    expect(results.call_4.content).toBe('docs/n.md:1: a needle here');
    expect(pausedIds(first.events).sort()).toEqual(['call_5', 'call_6']);
    const session =
      (first.events[0] as { sessionId?: string }).sessionId ?? /session (\S+)/.exec(first.stderr)?.[1];
    const resumed = await agentctl(
      ['run', 'main', '--session', String(session), '--approve', 'call_5', '--approve', 'call_6', '--json'],
      { cwd: dir },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readFile(join(dir, 'work/new/b.txt'), 'utf8')).toBe('bee');
    expect(await readFile(join(dir, 'work/a.txt'), 'utf8')).toBe('omega\n');
  });

  it('refuses paths out of the root: "..", absolute, symbolic links, writes through links', async () => {
    const outside = await probeProject({ 'secret.txt': 'top-secret' });
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(
        '[{ builtin: filesystem, root: ../work, options: { approve_writes: false } }]',
        [
          { name: 'read_file', arguments: { path: '../agentctl.yaml' } },
          { name: 'read_file', arguments: { path: join(outside, 'secret.txt') } },
          { name: 'read_file', arguments: { path: 'link/secret.txt' } },
          { name: 'write_file', arguments: { path: 'link/planted.txt', content: 'x' } },
          { name: 'write_file', arguments: { path: 'filelink', content: 'x' } },
          { name: 'find_files', arguments: { pattern: '**/*.txt' } },
          { name: 'grep', arguments: { pattern: 'top-secret' } },
          { name: 'find_files', arguments: { pattern: '../**' } },
          { name: 'read_file', arguments: { path: 'keep.txt\u0000.md' } },
          { name: 'write_file', arguments: { path: 'new\u0000.txt', content: 'x' } },
        ],
      ),
      'work/keep.txt': 'kept',
    });
    await symlink(outside, join(dir, 'work/link'));
    await symlink(join(outside, 'secret.txt'), join(dir, 'work/filelink'));
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    for (const id of ['call_1', 'call_2', 'call_3', 'call_4', 'call_5', 'call_8'])
      expect(results[id], id).toMatchObject({ isError: true });
    // Said about the path the model gave, not a system message quoting another.
    expect(results.call_9.content).toBe(
      'Tool read_file failed: path "keep.txt\\u0000.md" holds a NUL character',
    );
    expect(results.call_10.content).toBe(
      'Tool write_file failed: path "new\\u0000.txt" holds a NUL character',
    );
    expect(results.call_6.content).toBe('keep.txt');
    expect(results.call_7.content).toBe('[no match]');
    expect(JSON.stringify(toolResults(events))).not.toContain('top-secret');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top-secret');
    await expect(readFile(join(outside, 'planted.txt'))).rejects.toThrow();
  });

  it('writes and edits never change a file elsewhere through a hard link, and keep the mode', async () => {
    const outside = await probeProject({ 'shared.txt': 'outside text\n', 'tool.sh': 'echo old\n' });
    const dir = await probeProject({
      'agents/main.yaml': scriptedTurns(
        '[{ builtin: filesystem, root: ../work, options: { approve_writes: false } }]',
        [
          'tool_calls: [{ id: w, name: write_file, arguments: { path: written.txt, content: "by write_file" } }]',
          'tool_calls: [{ id: e, name: edit_file, arguments: { path: edited.sh, old_text: old, new_text: new } }]',
          'text: done',
        ],
      ),
      'work/keep.txt': 'kept',
    });
    // Hard links inside the root to files outside it, as a package manager's store makes them.
    await link(join(outside, 'shared.txt'), join(dir, 'work/written.txt'));
    await chmod(join(outside, 'tool.sh'), 0o750);
    await link(join(outside, 'tool.sh'), join(dir, 'work/edited.sh'));
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(results.w).toMatchObject({ isError: false });
    expect(results.e).toMatchObject({ isError: false });
    expect(await readFile(join(dir, 'work/written.txt'), 'utf8')).toBe('by write_file');
    expect(await readFile(join(dir, 'work/edited.sh'), 'utf8')).toBe('echo new\n');
    expect(await readFile(join(outside, 'shared.txt'), 'utf8')).toBe('outside text\n');
    expect(await readFile(join(outside, 'tool.sh'), 'utf8')).toBe('echo old\n');
    expect((await stat(join(dir, 'work/edited.sh'))).mode & 0o777).toBe(0o750);
    // No temporary file is left beside them.
    expect((await readdir(join(dir, 'work'))).sort()).toEqual(['edited.sh', 'keep.txt', 'written.txt']);
  });

  it('roots adds folders to filesystem and shell; max_results caps find_files and grep', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(
        '[{ builtin: filesystem, root: ../work, options: { roots: [../shared], max_results: 1 } }, { builtin: shell, root: ../work, options: { roots: [../shared], allow: [pwd] } }]',
        [
          { name: 'read_file', arguments: { path: '../shared/s.txt' } },
          { name: 'read_file', arguments: { path: '../agentctl.yaml' } },
          { name: 'find_files', arguments: { pattern: '*.md' } },
          { name: 'grep', arguments: { pattern: 'needle' } },
          { name: 'shell', arguments: { command: 'pwd', cwd: '../shared' } },
        ],
      ),
      'work/a.md': 'needle one\n',
      'work/b.md': 'needle two\n',
      'shared/s.txt': 'shared text',
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(results.call_1.content).toBe('shared text');
    expect(results.call_2).toMatchObject({ isError: true });
    expect(results.call_3.content).toBe('a.md\n[1 more not shown]');
    expect(results.call_4.content).toBe('a.md:1: needle one\n[more matches not shown]');
    expect(JSON.parse(results.call_5.content)).toMatchObject({ exit_code: 0 });
    expect(JSON.parse(results.call_5.content).stdout.trim()).toMatch(/\/shared$/);
  });

  it('shell passes only the env variables it lists, credentials scrubbed from results; filesystem max_bytes caps a read', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(
        '[{ builtin: shell, options: { allow: ["printenv *"], env: [PROBE_TOKEN, PROBE_LEVEL] } }, { builtin: filesystem, root: ../work, options: { max_bytes: 5 } }]',
        [
          { name: 'shell', arguments: { command: 'printenv PROBE_TOKEN' } },
          { name: 'shell', arguments: { command: 'printenv PROBE_UNLISTED' } },
          { name: 'read_file', arguments: { path: 'long.txt' } },
          { name: 'shell', arguments: { command: 'printenv PROBE_LEVEL' } },
        ],
      ),
      'work/long.txt': 'abcdefghijklmnopqrst',
    });
    const { code, stderr, events } = await runMain(dir, [], {
      PROBE_TOKEN: 'listed-value-81',
      PROBE_UNLISTED: 'unlisted-value-82',
      PROBE_LEVEL: 'verbose',
    });
    expect(code, stderr).toBe(0);
    const results = byId(events);
    // Seen by the command; a credential (its name says so) is scrubbed from what comes back.
    expect(JSON.parse(results.call_1.content)).toEqual({ exit_code: 0, stdout: '***\n', stderr: '' });
    expect(JSON.parse(results.call_2.content)).toMatchObject({ exit_code: 1, stdout: '' });
    expect(results.call_3.content).toBe('abcde\n[truncated: the file has 20 bytes; the first 5 are shown]');
    // A listed value that is no credential is the command's output as it is.
    expect(JSON.parse(results.call_4.content)).toEqual({ exit_code: 0, stdout: 'verbose\n', stderr: '' });
    expect(JSON.stringify(events)).not.toContain('value-8');
  });

  it('edits only an exact, unique match; read_only leaves out the writing tools', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(
        '[{ builtin: filesystem, root: ../work, options: { approve_writes: false } }]',
        [
          { name: 'edit_file', arguments: { path: 'a.txt', old_text: 'x', new_text: 'y' } },
          { name: 'edit_file', arguments: { path: 'a.txt', old_text: 'zzz', new_text: 'y' } },
          {
            name: 'edit_file',
            arguments: { path: 'a.txt', old_text: 'x', new_text: 'y', replace_all: true },
          },
        ],
      ),
      'agents/ro.yaml': `kind: agent
name: ro
model: ro-script
tools: [{ builtin: filesystem, root: ../work, options: { read_only: true, approve_writes: false } }]
---
kind: model
name: ro-script
provider: offline
model: script
script:
  - tool_calls:
      - { id: r, name: read_file, arguments: { path: a.txt } }
      - { id: w, name: write_file, arguments: { path: a.txt, content: overwritten } }
      - { id: e, name: edit_file, arguments: { path: a.txt, old_text: y, new_text: z } }
  - text: done
`,
      'work/a.txt': 'x x',
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(results.call_1.content).toContain('occurs 2 times');
    expect(results.call_2.content).toContain('not found');
    expect(results.call_3.content).toBe('replaced 2 occurrences in a.txt');
    expect(await readFile(join(dir, 'work/a.txt'), 'utf8')).toBe('y y');
    // read_only: the model is not offered the writing tools, and its calls of them change nothing.
    const ro = await agentctl(['run', 'ro', 'go', '--json'], { cwd: dir });
    expect(ro.code, ro.stderr).toBe(0);
    const roResults = byId(parseNdjson(ro.stdout));
    expect(roResults.r.content).toBe('y y');
    for (const [id, name] of [
      ['w', 'write_file'],
      ['e', 'edit_file'],
    ])
      expect(roResults[id], id).toMatchObject({
        isError: true,
        content: `Unknown tool "${name}". Available tools: read_file, list_dir, find_files, grep.`,
      });
    expect(await readFile(join(dir, 'work/a.txt'), 'utf8')).toBe('y y');
  });
});

describe.concurrent('fetch, think, todo, memory', () => {
  it('fetch returns the text of an HTML page from an allowed host, capped, and refuses other hosts', async () => {
    const dir = await probeProject({
      'agents/main.yaml': scriptedAgent(`[{ builtin: fetch, allowed_hosts: ["${host}"], max_bytes: 300 }]`, [
        { name: 'fetch', arguments: { url: `http://${host}/menu` } },
        { name: 'fetch', arguments: { url: `http://${host}/big` } },
        { name: 'fetch', arguments: { url: 'http://localhost:9/x' } },
        { name: 'fetch', arguments: { url: `http://${host}/to-file` } },
      ]),
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(JSON.parse(results.call_1.content).body).toBe('Menu\n\nSoup & bread\n\nToday:\nlentil');
    expect(JSON.parse(results.call_2.content)).toMatchObject({ truncated: true, body: 'x'.repeat(300) });
    expect(results.call_3).toMatchObject({ isError: true });
    expect(results.call_3.content).toContain('not allowed');
    // Said as what it is: not "another host", which would send one looking for a host to allow.
    expect(results.call_4).toMatchObject({ isError: true });
    expect(results.call_4.content).toContain(
      `http://${host}/to-file redirects to a file: URL; only http and https redirects are followed`,
    );
  });

  it('think changes nothing; todo keeps its list in the session across runs', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: scripted
tools: [{ builtin: think }, { builtin: todo }]
---
kind: model
name: scripted
provider: offline
model: script
script:
  - match: plan
    tool_calls:
      - { id: t, name: think, arguments: { thought: "two steps" } }
      - { id: a1, name: todo, arguments: { action: add, title: write tests } }
  - match: plan
    tool_calls: [{ id: a2, name: todo, arguments: { action: add, title: ship } }]
  - match: plan
    text: planned
  - match: progress
    tool_calls: [{ id: u, name: todo, arguments: { action: update, id: 1, status: done } }]
  - match: progress
    text: updated
`,
    });
    const plan = await agentctl(['run', 'main', 'plan', '--session', 's1', '--json'], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('"content":"noted"');
    const progress = await agentctl(['run', 'main', 'progress', '--session', 's1', '--json'], { cwd: dir });
    expect(progress.code, progress.stderr).toBe(0);
    const results = byId(
      progress.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
    expect(results.u.content).toBe('1. [done] write tests\n2. [pending] ship');
    const show = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    expect(JSON.parse(show.stdout).session.state.todos).toHaveLength(2);
  });

  it('memory keeps notes per user across sessions, and not for another user', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: scripted
tools: [{ builtin: memory }]
---
kind: model
name: scripted
provider: offline
model: script
script:
  - match: remember
    tool_calls: [{ id: r, name: memory, arguments: { action: remember, note: likes green tea } }]
  - match: remember
    text: ok
  - match: recall
    tool_calls: [{ id: q, name: memory, arguments: { action: recall, query: TEA } }]
  - match: recall
    text: ok
`,
    });
    const remember = await agentctl(['run', 'main', 'remember', '--user', 'ann', '--json'], { cwd: dir });
    expect(remember.code, remember.stderr).toBe(0);
    const [ann, bob] = await Promise.all(
      ['ann', 'bob'].map((user) =>
        agentctl(['run', 'main', 'recall', '--user', user, '--json'], { cwd: dir }),
      ),
    );
    const recalled = (stdout: string) =>
      byId(
        stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).q.content;
    expect(recalled(ann.stdout)).toBe('1. likes green tea');
    expect(recalled(bob.stdout)).toBe('[no notes]');
  });

  it('memory keeps only the last max_notes notes and forgets one; todo clears done tasks; fetch with extract_text: false returns the page as sent', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: scripted
tools: [{ builtin: memory, options: { max_notes: 2 } }, { builtin: fetch, allowed_hosts: ["${host}"], options: { extract_text: false } }, { builtin: todo }]
---
kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: n1, name: memory, arguments: { action: remember, note: first } }]
  - tool_calls: [{ id: n2, name: memory, arguments: { action: remember, note: second } }]
  - tool_calls: [{ id: n3, name: memory, arguments: { action: remember, note: third } }]
  - tool_calls:
      - { id: q, name: memory, arguments: { action: recall } }
      - { id: f, name: fetch, arguments: { url: "http://${host}/menu" } }
  - tool_calls: [{ id: x, name: memory, arguments: { action: forget, id: 2 } }]
  - tool_calls: [{ id: q2, name: memory, arguments: { action: recall } }]
  - tool_calls: [{ id: t1, name: todo, arguments: { action: add, title: write, status: done } }]
  - tool_calls: [{ id: t2, name: todo, arguments: { action: add, title: ship } }]
  - tool_calls: [{ id: t3, name: todo, arguments: { action: clear_done } }]
  - text: done
`,
    });
    const { code, stderr, events } = await runMain(dir, ['--user', 'ann']);
    expect(code, stderr).toBe(0);
    const results = byId(events);
    expect(results.q.content).toBe('2. second\n3. third');
    expect(JSON.parse(results.f.content).body).toContain('<h1>Soup &amp; bread</h1>');
    expect(results.x.content).toBe('forgot note 2');
    expect(results.q2.content).toBe('3. third');
    expect(results.t2.content).toBe('1. [done] write\n2. [pending] ship');
    expect(results.t3.content).toBe('2. [pending] ship');
  });
});

describe('toolbox options are checked at validate', () => {
  it('an unknown option is an error at its line', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `kind: agent
name: main
model: offline/echo
tools:
  - { builtin: shell, options: { alow: ["ls*"] } }
`,
    });
    await mkdir(join(dir, 'x'), { recursive: true });
    await writeFile(join(dir, 'x/.keep'), '');
    const { code, stdout } = await agentctl(['validate'], { cwd: dir });
    expect(code).toBe(1);
    expect(stdout).toMatch(/agents\/main\.yaml:5:\d+: error: .*alow/);
  });
});
