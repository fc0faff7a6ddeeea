import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, REPO, removeTempDirs, tempProject } from './support/cli.js';
import { freePort } from './support/free-port.js';
import { waitFor } from './support/wait-for.js';

// A built page as esbuild makes one, until the test runs against @agentctl/ui's own build.
const PAGE = join(REPO, 'packages/server/test/fixtures/page');
const GOOD =
  'kind: agent\nname: hello\ndescription: Says hello\nmodel: offline/echo\ninstruction: Be brief.\n';
// The beginner's typo: `modle:` for `model:` at line 4.
const TYPO = GOOD.replace('model:', 'modle:');
const TYPO_ERROR =
  'agents/hello.yaml:4:1: error: unknown key `modle` in agent; did you mean `model`? [unknown-key]\n';

/** A real `agentctl` process with piped stdio, its output read as it comes. */
class Dev {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: cliEnv({ AGENTCTL_UI_DIR: PAGE, AGENTCTL_SERVE_TOKEN: undefined }),
      stdio: 'pipe',
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.child.on('close', resolve));
  }

  /** Waits until `stream` holds `text`, failing (with the output) if the process ends first. */
  async waitFor(stream: 'stdout' | 'stderr', text: string | RegExp): Promise<void> {
    const found = () => (typeof text === 'string' ? this[stream].includes(text) : text.test(this[stream]));
    await waitFor(() => {
      if (!found() && this.child.exitCode !== null)
        throw new Error(
          `agentctl exited ${this.child.exitCode}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      return found();
    }, `${stream} to show ${text}; stderr so far:\n${this.stderr}`);
  }
}

const running: Dev[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const dev of running.splice(0)) if (dev.child.exitCode === null) dev.child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((s) => new Promise((closed) => s.close(closed))));
});
afterAll(removeTempDirs);

function start(args: string[], cwd: string): Dev {
  const dev = new Dev(args, cwd);
  running.push(dev);
  return dev;
}

describe('agentctl dev on a project broken at start', () => {
  it('says file:line:col, waits for the save that fixes it, then chats; a later broken save keeps it', async () => {
    const root = await tempProject({ 'agents/hello.yaml': TYPO });
    const dev = start(['dev', 'hello'], root);
    await dev.waitFor('stderr', 'starts as soon as the project is valid');
    // Said as validate says it, once, with what to do; the process is still there.
    expect(dev.stderr).toBe(
      `${TYPO_ERROR}agentctl: 1 error(s) in the project; fix them and save: hello starts as soon as the project is valid (Ctrl-C stops)\n`,
    );
    // A line typed while it waits is answered once the project is good.
    dev.child.stdin.write('first words\n');
    await writeFile(join(root, 'agents/hello.yaml'), GOOD);
    await dev.waitFor('stdout', 'first words\n');
    expect(dev.stderr).toContain('[reload] generation 1 live');
    expect(dev.stderr).toContain('chatting with hello');

    // After the first good version, a broken save keeps it answering, as after a good start.
    await writeFile(join(root, 'agents/hello.yaml'), TYPO);
    await dev.waitFor('stderr', '[reload] failed with 1 error(s); still serving generation 1');
    expect(dev.stderr).toContain(`  ${TYPO_ERROR}`);
    dev.child.stdin.write('second words\n');
    await dev.waitFor('stdout', 'second words\n');
    dev.child.stdin.end();
    expect(await dev.exited).toBe(0);
  });

  it('dev --ui serves the agent over HTTP once a save fixes the project, its port held meanwhile', async () => {
    const root = await tempProject({ 'agents/hello.yaml': TYPO });
    const port = await freePort();
    const dev = start(['dev', '--ui', 'hello', '--port', String(port)], root);
    await dev.waitFor('stderr', 'serving starts as soon as the project is valid');
    expect(dev.stderr).toContain(TYPO_ERROR);
    expect(dev.stdout).toBe('');
    // Another server cannot take the port while dev waits for the fix.
    const second = start(['dev', '--ui', '--port', String(port)], root);
    expect(await second.exited).toBe(2);
    expect(second.stderr).toContain(`agentctl: cannot listen on 127.0.0.1:${port}`);
    // A save that is still broken is said, and the wait goes on.
    await writeFile(join(root, 'agents/hello.yaml'), `${TYPO}tools: nope\n`);
    await dev.waitFor('stderr', '[reload] failed; nothing served yet:');
    // Whether the project has a queue is not known yet: queued runs are refused as the rest is.
    const refused = [
      await fetch(`http://127.0.0.1:${port}/runs/1/events`),
      await fetch(`http://127.0.0.1:${port}/agents/hello/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'later', async: true }),
      }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('project_invalid');
    }

    await writeFile(join(root, 'agents/hello.yaml'), GOOD);
    await dev.waitFor('stdout', `ui: http://127.0.0.1:${port}/ui/#agent=hello\n`);
    const run = await fetch(`http://127.0.0.1:${port}/agents/hello/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi over http', stream: false }),
    });
    expect(await run.json()).toMatchObject({ status: 'complete', output: 'hi over http' });
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(0);
  });

  it('Ctrl-C and SIGTERM stop it while it waits, with the shell code of the signal', async () => {
    const root = await tempProject({ 'agents/hello.yaml': TYPO });
    for (const [args, signal, code] of [
      [['dev', 'hello'], 'SIGINT', 130],
      [['dev', '--ui', '--port', '0'], 'SIGTERM', 143],
    ] as const) {
      const dev = start([...args], root);
      await dev.waitFor('stderr', 'as soon as the project is valid');
      dev.child.kill(signal);
      expect(await dev.exited).toBe(code);
      expect(dev.stderr).toContain(
        `agentctl: stopped by ${signal} before the project had a working version; nothing was run\n`,
      );
    }
  });

  it('waits on an agentctl.yaml that breaks its schema (a string for the include list), not an internal error', async () => {
    const root = await tempProject({
      'agentctl.yaml': 'kind: project\nname: p\ninclude: agents/*.yaml\n',
      'agents/hello.yaml': GOOD,
    });
    const dev = start(['dev', 'hello'], root);
    await dev.waitFor('stderr', 'starts as soon as the project is valid');
    expect(dev.stderr).toBe(
      'agentctl.yaml:3:10: error: `include` must be a list, not "agents/*.yaml"; a list of one is written `[agents/*.yaml]` [schema]\n' +
        'agentctl: 1 error(s) in the project; fix them and save: hello starts as soon as the project is valid (Ctrl-C stops)\n',
    );
    await writeFile(join(root, 'agentctl.yaml'), 'kind: project\nname: p\ninclude: [agents/*.yaml]\n');
    dev.child.stdin.end('fixed\n');
    await dev.waitFor('stdout', 'fixed\n');
    expect(await dev.exited).toBe(0);
  });

  it('an error in a part of the project the agent does not use is a warning, as for run', async () => {
    const root = await tempProject({
      'agents/hello.yaml': GOOD,
      'agents/other.yaml': TYPO.replace('hello', 'other'),
    });
    const warning =
      'agents/other.yaml:4:1: warning: unknown key `modle` in agent; did you mean `model`? (not used by `hello`, so not blocking it) [unknown-key]\n';
    const run = await agentctl(['run', 'hello', 'hi'], { cwd: root });
    expect(run.stderr).toContain(warning);
    expect(run.code).toBe(0);
    const dev = start(['dev', 'hello'], root);
    dev.child.stdin.end('hi from dev\n');
    expect(await dev.exited).toBe(0);
    expect(dev.stdout).toBe('hi from dev\n');
    expect(dev.stderr).toContain(warning);
    expect(dev.stderr).not.toContain('error');
  });

  it('a bad command line still ends at once: a port in use, an unknown --model, a missing folder', async () => {
    const root = await tempProject({ 'agents/hello.yaml': TYPO });
    const busy = createServer();
    servers.push(busy);
    const port = await new Promise<number>((resolve) =>
      busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
    );
    const inUse = start(['dev', '--ui', '--port', String(port)], root);
    expect(await inUse.exited).toBe(2);
    expect(inUse.stderr).toContain(`agentctl: cannot listen on 127.0.0.1:${port}`);
    for (const args of [
      ['dev', 'hello', '--model', 'fast'],
      ['dev', '--ui', '--port', '0', '--model', 'fast'],
    ]) {
      const dev = start(args, root);
      expect(await dev.exited).toBe(2);
      expect(dev.stderr).toContain('agentctl: --model fast: no model of that name');
    }
    const missing = start(['-C', 'nowhere', 'dev', 'hello'], root);
    expect(await missing.exited).toBe(2);
    expect(missing.stderr).toBe('agentctl: no such project folder: nowhere\n');
  });
});
