import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  exampleProject,
  fixtureProject,
  parseNdjson,
  REPO,
  removeTempDirs,
  tempProject,
} from './support/cli.js';
import { startLongRunning } from './support/long-running.js';

const run = promisify(execFile);

// The bundle the build makes (packages/cli/scripts/bundle.js), made here into a folder of its own
// beside the real one, so the assets resolver meets the layout the bin uses; each command is run
// from the bundle and from the build's modules, and both must answer alike. Build first.
const bundle = join(REPO, `packages/cli/dist/bundle-test-${process.pid}`);
const entries = {
  bundle: pathToFileURL(join(bundle, 'main.js')).href,
  build: pathToFileURL(join(REPO, 'packages/cli/dist/main.js')).href,
};

beforeAll(async () => {
  await run(process.execPath, [join(REPO, 'packages/cli/scripts/bundle.js'), bundle], { cwd: REPO });
}, 60_000);
afterAll(async () => {
  await rm(bundle, { recursive: true, force: true });
  await removeTempDirs();
});

async function agentctlFrom(entry: string, args: string[], cwd: string) {
  const code = `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(['node', 'agentctl', ...process.argv.slice(1)]);`;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', code, ...args], {
      cwd,
      env: cliEnv(),
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What a run's events say, without their ids and times. */
const story = (stdout: string) =>
  parseNdjson(stdout).map(({ type, agent, name, text, isError }) => ({ type, agent, name, text, isError }));

describe('the bundled CLI', () => {
  it('runs an agent with a TypeScript module tool as the build does', async () => {
    const project = await exampleProject();
    const args = ['run', 'toolsmith', 'count these words', '--json'];
    const bundled = await agentctlFrom(entries.bundle, args, project);
    const built = await agentctlFrom(entries.build, args, project);
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(story(bundled.stdout)).toEqual(story(built.stdout));
    expect(bundled.stdout).toContain('"name":"word_count"');
    expect(bundled.stdout).not.toContain('"isError":true');
  });

  it('reports a broken project exactly as the build does', async () => {
    const project = await fixtureProject('invalid');
    const bundled = await agentctlFrom(entries.bundle, ['validate'], project);
    const built = await agentctlFrom(entries.build, ['validate'], project);
    expect(bundled.code).toBe(1);
    expect(bundled).toEqual(built);
  });

  it('serves the dev UI page it finds through @agentctl/ui, as the build does', async () => {
    // No module tool: a worker started under `-e --input-type=module` would read its code as ESM.
    const project = await tempProject({
      'agents/hello.yaml': 'kind: agent\nname: hello\nmodel: offline/echo\n',
    });
    const code = `const { main } = await import(${JSON.stringify(entries.bundle)}); process.exitCode = await main(['node', 'agentctl', ...process.argv.slice(1)]);`;
    const dev = await startLongRunning(
      project,
      ['dev', '--ui', 'hello', '--port', '0'],
      { AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
      [process.execPath, '--input-type=module', '-e', code],
    );
    try {
      const page = await fetch(new URL('/ui/', dev.match[1]));
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(await readFile(join(REPO, 'packages/ui/dist/index.html'), 'utf8'));
    } finally {
      await dev.stop('SIGKILL');
    }
  });

  it('prints the schema the packages hold', async () => {
    const bundled = await agentctlFrom(entries.bundle, ['schema'], REPO);
    const built = await agentctlFrom(entries.build, ['schema'], REPO);
    expect(bundled.code).toBe(0);
    expect(bundled.stdout).toBe(built.stdout);
  });
});
