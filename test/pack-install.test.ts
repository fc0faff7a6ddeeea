import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { behaviour, ENTRY_CHECK, entryCheck } from './support/entry-check.js';
import { startLongRunning } from './support/long-running.js';
import { startOtlpReceiver } from './support/otlp-receiver.js';

const run = promisify(execFile);

// What a user gets from the registry: every package packed as it would be published, installed
// with npm into a folder outside the repository, and the installed `agentctl` driven from there.
// Runs the built packages: build first (`pnpm build`).
let tarballs: string[];
let app: string;
let bin: string;

beforeAll(async () => {
  const root = await tempDir('agentctl-pack-');
  const out = join(root, 'tarballs');
  await run('pnpm', ['-r', 'pack', '--pack-destination', out], { cwd: REPO, env: cliEnv() });
  tarballs = (await readdir(out)).filter((f) => f.endsWith('.tgz')).map((f) => join(out, f));
  app = join(root, 'app');
  await run('mkdir', ['-p', app]);
  await writeFile(join(app, 'package.json'), '{ "private": true }\n');
  // Third-party dependencies come from the registry (or npm's cache); ours from the tarballs.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], {
    cwd: app,
    env: cliEnv(),
  });
  bin = join(app, 'node_modules/.bin/agentctl');
}, 150_000);
afterAll(removeTempDirs);

async function installed(args: string[], cwd = app, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(bin, args, { cwd, env: cliEnv(env), timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('packed and installed with npm', () => {
  it('packs every workspace package, each clean by publint', async () => {
    const names = (await readdir(join(REPO, 'packages'))).sort();
    expect(tarballs).toHaveLength(names.length);
    for (const tarball of tarballs) {
      const data = await readFile(tarball);
      const { messages, pkg } = await publint({
        pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) },
        strict: true,
      });
      expect(
        messages.map((m) => formatMessage(m, pkg)),
        tarball,
      ).toEqual([]);
      const manifest = JSON.stringify(pkg);
      // pnpm rewrote `workspace:` ranges and the source-only export condition stayed home.
      expect(manifest, tarball).not.toContain('workspace:');
      expect(manifest, tarball).not.toContain('agentctl-source');
    }
  });

  it('installs the command as `agentctl` from @agentctl/cli', async () => {
    const manifest = JSON.parse(await readFile(join(app, 'node_modules/@agentctl/cli/package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ agentctl: './bin/agentctl.js' });
    const { code, stdout } = await installed(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(manifest.version);
  });

  it('init, validate and run a new project with the installed command', async () => {
    // With the installed command on the PATH, the next steps name it as a user types it.
    const PATH = `${join(app, 'node_modules/.bin')}:${process.env.PATH}`;
    const init = await installed(['init', 'my-project'], app, { PATH });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toBe(
      'created a project in my-project (template single)\nnext: cd my-project\nnext: agentctl run assistant "what time is it?"\nnext: agentctl test   # runs tests/assistant.yaml\n',
    );
    const project = join(app, 'my-project');
    const validate = await installed(['validate'], project);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toContain('no problems');
    // The test init wrote, run by the installed command (the schema of `kind: test` ships with it).
    const tested = await installed(['test', '--format', 'junit'], project);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain(
      '<testcase name="assistant-uses-its-tools" classname="tests/assistant.yaml"',
    );
    const answer = await installed(['run', 'assistant', 'what time is it?', '--json'], project);
    expect(answer.code, answer.stderr).toBe(0);
    const events = answer.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(events.at(-1)?.type).toBe('run_end');
    expect(events.some((e) => e.type === 'tool_result')).toBe(true);
    // A module tool importing the runtime, as docs/format.md shows, resolves the installed @agentctl/core.
    await writeFile(
      join(project, 'tools/add.ts'),
      `import { defineTool } from '@agentctl/core';
export const add = defineTool<{ a: number; b: number }>({
  name: 'add',
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: ({ a, b }) => ({ sum: a + b }),
});
`,
    );
    await writeFile(
      join(project, 'agents/adder.yaml'),
      'kind: agent\nname: adder\nmodel: offline/auto\ntools: [{ module: ../tools/add.ts }]\n',
    );
    const added = await installed(['run', 'adder', 'add', '--json'], project);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('"name":"add"');
    expect(added.stdout).not.toContain('"isError":true');
    // The schema the installed package ships is the one a clone has.
    const schema = await installed(['schema']);
    expect(JSON.parse(schema.stdout).title).toBe('agentctl document');
  });

  it('runs from the bundle packed with the CLI, which finds its assets in the installed packages', async () => {
    const cli = join(app, 'node_modules/@agentctl/cli');
    expect(existsSync(join(cli, 'dist/bundle/main.js'))).toBe(true);
    // Without the unbundled entry, only the bundle can answer.
    const entry = join(cli, 'dist/main.js');
    await rename(entry, `${entry}.away`);
    try {
      const project = join(app, 'my-project');
      // A .ts module tool: tsx and the precompiled validators are found through @agentctl/config.
      const added = await installed(['run', 'adder', 'add', '--json'], project);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toContain('"name":"add"');
      expect(added.stdout).not.toContain('"isError":true');
      // A schema error is reported from the packed schemas, with its position.
      await writeFile(
        join(project, 'agents/broken.yaml'),
        'kind: agent\nname: broken\nmodle: offline/echo\n',
      );
      const validate = await installed(['validate'], project);
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain('agents/broken.yaml:3:1');
      expect(validate.stdout).toContain('modle');
    } finally {
      await rename(`${entry}.away`, entry);
    }
  });

  it("a user's import of @agentctl/core loads its bundle, which exports and runs as the build does", async () => {
    // The check script beside the app's own code, where `@agentctl/core` is the installed package.
    const script = join(app, 'entry-check.mjs');
    await copyFile(ENTRY_CHECK, script);
    const [built, installedCore] = await Promise.all([
      entryCheck(ENTRY_CHECK),
      entryCheck(script, ['--enable-source-maps']),
    ]);
    expect(built.main).toMatch(/\/packages\/core\/dist\/index\.js$/);
    expect(installedCore.main).toMatch(/\/node_modules\/@agentctl\/core\/dist\/bundle\/index\.js$/);
    expect(installedCore.testing).toMatch(/\/node_modules\/@agentctl\/core\/dist\/bundle\/testing\.js$/);
    // The names the monorepo's dist/index.js exports, with their own names; an offline agent and a
    // scripted one whose tool needs ajv (the installed dependency, imported on first use) run alike.
    expect(behaviour(installedCore)).toEqual(behaviour(built));
    expect(installedCore.echo).toBe('hello from the bundle');
    expect(installedCore.output).toBe('sent');
    expect([installedCore.ajvBeforeRun, installedCore.ajvAfterRun]).toEqual([false, true]);
    // @agentctl/core/testing shares the main entry's classes: its errors are AgentErrors.
    expect(installedCore.shared).toMatchObject({
      scriptModel: true,
      agentError: true,
      errorName: 'AgentError',
    });
    // The packed source maps lead to the packed TypeScript source.
    expect(installedCore.shared.stack).toContain('node_modules/@agentctl/core/src/offline/script-model.ts:');
  });

  it('serves the dev UI from the installed @agentctl/ui', async () => {
    const project = join(app, 'ui-project');
    await mkdir(join(project, 'agents'), { recursive: true });
    await writeFile(
      join(project, 'agents/assistant.yaml'),
      'kind: agent\nname: assistant\nmodel: offline/echo\n',
    );
    const dev = await startLongRunning(
      project,
      ['dev', '--ui', 'assistant', '--port', '0'],
      { AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
      [bin],
    );
    try {
      expect(dev.match[1]).toMatch(/\/ui\/#agent=assistant$/);
      const page = await fetch(new URL('/ui/', dev.match[1]));
      expect(page.status).toBe(200);
      const installedPage = join(app, 'node_modules/@agentctl/ui/dist/index.html');
      expect(await page.text()).toBe(await readFile(installedPage, 'utf8'));
    } finally {
      await dev.stop('SIGKILL');
    }
  });

  it('traces a run of the installed command: @agentctl/tracing loads beside the bundle', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const project = join(app, 'my-project');
      const run = await installed(['run', 'assistant', 'hi', '--json'], project, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(receiver.spans.map((s) => s.name)).toEqual(
        expect.arrayContaining(['invocation assistant', 'invoke_agent assistant']),
      );
    } finally {
      await receiver.close();
    }
  });
});
