import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, removeTempDirs, tempDir } from './support/cli.js';

/** A long-lived `agentctl` with piped stdin, read as it goes. */
class Cli {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  #listeners = new Set<() => void>();

  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, [BIN, ...args], { cwd, env: cliEnv(), stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.#notify();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.#notify();
    });
    this.exited = new Promise((resolve) => this.child.on('close', resolve));
    this.child.stdin.on('error', () => undefined);
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Waits until `stream` (from `from` on) matches; the test's timeout fails a hang, with the output. */
  async waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    while (true) {
      const match = this[stream].slice(from).match(pattern);
      if (match) return match;
      const exited = this.child.exitCode !== null;
      if (exited) throw new Error(`agentctl exited; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const done = () => {
          this.#listeners.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, 500);
        this.#listeners.add(done);
      });
    }
  }

  /** Writes a file, then waits for the reload it causes to report (live or failed). */
  async save(edit: () => Promise<void>): Promise<string> {
    const from = this.stderr.length;
    await edit();
    const match = await this.waitFor('stderr', /\[reload\] (generation \d+ live|failed)[^\n]*\n/, from);
    return this.stderr.slice(from, from + (match.index ?? 0) + match[0].length + 2000);
  }

  /** Sends a message and returns the next stdout line that starts with `{`. */
  async ask(line: string): Promise<string> {
    const from = this.stdout.length;
    this.send(line);
    return (await this.waitFor('stdout', /\{.*\}\n/, from))[0].trim();
  }

  async end(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

const running: Cli[] = [];
afterEach(() => {
  for (const cli of running.splice(0)) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
});
afterAll(removeTempDirs);

/** An echo agent whose structured answer is `{"v": value}`: what the next message sees. */
const agentYaml = (value: string) =>
  `kind: agent\nname: a\nmodel: offline/echo\ninstruction: answer\noutput_schema: { type: object, properties: { v: { const: ${value} } }, required: [v] }\n`;

async function projectWith(files: Record<string, string>): Promise<string> {
  const root = await tempDir('agentctl-dev-');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

function start(args: string[], cwd: string): Cli {
  const cli = new Cli(args, cwd);
  running.push(cli);
  return cli;
}

describe('agentctl dev', () => {
  it('answers the next message from the edited agent, for every editor save style', async () => {
    const root = await projectWith({ 'agents/a.yaml': agentYaml('start') });
    const file = join(root, 'agents/a.yaml');
    const cli = start(['dev', 'a'], root);
    expect(await cli.ask('hello')).toBe('{"v":"start"}');
    const styles: Record<string, (text: string) => Promise<void>> = {
      in_place: (text) => writeFile(file, text),
      temp_rename: async (text) => {
        await writeFile(`${file}.tmp`, text);
        await rename(`${file}.tmp`, file);
      },
      backup_rename: async (text) => {
        await rename(file, `${file}~`);
        await writeFile(file, text);
        await unlink(`${file}~`);
      },
      delete_recreate: async (text) => {
        await unlink(file);
        await writeFile(file, text);
      },
    };
    for (const [style, save] of Object.entries(styles)) {
      const report = await cli.save(() => save(agentYaml(style)));
      expect(report, style).toMatch(/generation \d+ live \(1 file changed\): 1 changed: ~a/);
      expect(await cli.ask(`after ${style}`), style).toBe(`{"v":"${style}"}`);
    }
    expect(await cli.end()).toBe(0);
  });

  it('keeps the old agent answering on a broken save, prints file:line:col once, and recovers', async () => {
    const root = await projectWith({ 'agents/a.yaml': agentYaml('good') });
    const file = join(root, 'agents/a.yaml');
    const cli = start(['dev', 'a'], root);
    expect(await cli.ask('one')).toBe('{"v":"good"}');
    const report = await cli.save(() =>
      writeFile(file, `${agentYaml('bad')}limits: { max_iterations: [ }\n`),
    );
    expect(report).toMatch(/\[reload\] failed with \d+ error\(s\); still serving generation 1/);
    expect(report).toMatch(/agents\/a\.yaml:6:\d+: error/);
    expect(await cli.ask('two')).toBe('{"v":"good"}');
    expect(cli.stderr.match(/\[reload\] failed/g)).toHaveLength(1);
    const fixed = await cli.save(() => writeFile(file, agentYaml('fixed')));
    expect(fixed).toMatch(/generation 2 live/);
    expect(await cli.ask('three')).toBe('{"v":"fixed"}');
    expect(await cli.end()).toBe(0);
  });

  it('says what a reload added and removed, and keeps the session across reloads', async () => {
    const root = await projectWith({ 'agents/a.yaml': agentYaml('x') });
    const cli = start(['dev', 'a', '--json'], root);
    await cli.waitFor('stderr', /chatting with a/);
    cli.send('first');
    await cli.waitFor('stdout', /"type":"run_end"/);
    const added = await cli.save(() =>
      writeFile(join(root, 'agents/b.yaml'), agentYaml('b').replace('name: a', 'name: b')),
    );
    expect(added).toMatch(/1 added: \+b/);
    const from = cli.stdout.length;
    cli.send('second');
    await cli.waitFor('stdout', /"type":"run_end"/, from);
    expect(await cli.end()).toBe(0);
    const id = cli.stderr.match(/session ([0-9a-f-]{36})/)?.[1] as string;
    const shown = await agentctl(['sessions', 'show', id, '--json'], { cwd: root });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('first');
    expect(shown.stdout).toContain('second');
  });
});

describe('agentctl dev, stopped', () => {
  it('by SIGTERM during a message: the run is cancelled and dev ends (143), however much input is left', async () => {
    const root = await projectWith({
      'agents/a.yaml': `kind: agent
name: a
model: offline/auto
tools: [nap]
---
kind: tool
name: nap
description: Sleeps
parameters: { type: object, properties: {} }
command: { argv: [sleep, "20"] }
needs_approval: false
`,
    });
    const cli = start(['dev', 'a', '--session', 'stopped-dev'], root);
    cli.send('go');
    await cli.waitFor('stderr', /→ nap\(/);
    cli.child.kill('SIGTERM');
    // stdin stays open: dev must end on the signal, not wait for more messages.
    expect(await cli.exited).toBe(143);
    expect(cli.stderr).toContain('error [ABORTED]: stopped by SIGTERM');
  });
});

describe('agentctl run --watch', () => {
  it('waits for a prompt on stdin, then runs it again on every good change', async () => {
    const root = await projectWith({ 'agents/a.yaml': agentYaml('first') });
    const cli = start(['run', 'a', '--watch'], root);
    await cli.waitFor('stderr', /waiting for a prompt/);
    expect(await cli.ask('hello')).toBe('{"v":"first"}');
    const from = cli.stdout.length;
    await cli.save(() => writeFile(join(root, 'agents/a.yaml'), agentYaml('second')));
    expect((await cli.waitFor('stdout', /\{.*\}\n/, from))[0].trim()).toBe('{"v":"second"}');
    const broken = cli.stdout.length;
    const report = await cli.save(() =>
      writeFile(join(root, 'agents/a.yaml'), 'kind: agent\nname: a\nmodel: [\n'),
    );
    expect(report).toMatch(/agents\/a\.yaml:\d+:\d+: error/);
    await cli.save(() => writeFile(join(root, 'agents/a.yaml'), agentYaml('third')));
    expect((await cli.waitFor('stdout', /\{.*\}\n/, broken))[0].trim()).toBe('{"v":"third"}');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('says so when a save renames the agent, and runs again once a save brings it back', async () => {
    const root = await projectWith({ 'agents/a.yaml': agentYaml('first') });
    const cli = start(['run', 'a', '--watch'], root);
    await cli.waitFor('stderr', /waiting for a prompt/);
    expect(await cli.ask('hello')).toBe('{"v":"first"}');
    const renamed = await cli.save(() =>
      writeFile(join(root, 'agents/a.yaml'), agentYaml('gone').replace('name: a', 'name: b')),
    );
    expect(renamed).toMatch(/generation 2 live/);
    const from = cli.stderr.length;
    cli.send('are you there');
    await cli.waitFor('stderr', /agentctl: agent "a" is no longer in the project\n/, from);
    await cli.save(() => writeFile(join(root, 'agents/a.yaml'), agentYaml('back')));
    expect((await cli.waitFor('stdout', /\{"v":"back"\}\n/))[0].trim()).toBe('{"v":"back"}');
    await cli.waitFor('stderr', /run on generation 3 ended/);
    // A reload that went live is not reported as a failed one, and no stack trace reaches the user.
    expect(cli.stderr).not.toMatch(/\[reload\] failed|internal-error|\n\s+at /);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('SIGTERM during a run cancels it, waits for its session to end, and exits 143', async () => {
    const root = await projectWith({
      'agents/a.yaml': `kind: agent
name: a
model: offline/auto
tools: [nap]
---
kind: tool
name: nap
description: Sleeps
parameters: { type: object, properties: {} }
command: { argv: [sleep, "20"] }
needs_approval: false
`,
    });
    const cli = start(['run', 'a', 'go', '--watch', '--session', 'watched'], root);
    await cli.waitFor('stderr', /→ nap\(/);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(143);
    expect(cli.stderr).toContain('error [ABORTED]: stopped by SIGTERM');
    const show = await agentctl(['sessions', 'show', 'watched', '--json'], { cwd: root });
    const events = JSON.parse(show.stdout).session.events as Array<Record<string, unknown>>;
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
  });

  it('finishes a long tool call on the old generation while the new one answers', async () => {
    const gate = join(await tempDir('agentctl-gate-'), 'open');
    const tool = (version: string, wait: boolean) => `import { existsSync } from 'node:fs';
export default {
  name: 'slow', description: 'answers its version', parameters: { type: 'object', properties: {} },
  async execute() {
    ${wait ? `while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20));` : ''}
    return 'tool ${version}';
  },
};
`;
    const root = await projectWith({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ninstruction: go\ntools: [{ module: ../tools/slow.ts }]\n',
      'tools/slow.ts': tool('v1', true),
    });
    const cli = start(['run', 'a', 'go', '--watch'], root);
    await cli.waitFor('stderr', /run on generation 1/);
    const report = await cli.save(() => writeFile(join(root, 'tools/slow.ts'), tool('v2', false)));
    expect(report).toMatch(/generation 2 live \(1 file changed\): 1 changed: ~a/);
    await cli.waitFor('stdout', /tool v2/);
    await cli.waitFor('stderr', /run on generation 2 ended/);
    expect(cli.stdout).not.toMatch(/tool v1/);
    await writeFile(gate, '');
    await cli.waitFor('stdout', /tool v1/);
    await cli.waitFor('stderr', /generation 1 released after its last run/);
    expect(cli.stdout.indexOf('tool v2')).toBeLessThan(cli.stdout.indexOf('tool v1'));
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
