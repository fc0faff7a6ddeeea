import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../src/package-version.js';
import { VERSION } from '../src/program.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const versionOf = async (manifest: string) =>
  (JSON.parse(await readFile(new URL(manifest, import.meta.url), 'utf8')) as { version: string }).version;

describe('packageVersion', () => {
  it('reads the version of the installed package a module resolves, not a version written in code', async () => {
    const app = await mkdtemp(join(tmpdir(), 'agentctl-version-'));
    dirs.push(app);
    const core = join(app, 'node_modules/@agentctl/core');
    await mkdir(join(core, 'dist'), { recursive: true });
    await writeFile(
      join(core, 'package.json'),
      JSON.stringify({
        name: '@agentctl/core',
        version: '7.3.1',
        exports: { '.': { default: './dist/index.js' } },
      }),
    );
    await writeFile(join(core, 'dist/index.js'), '');
    expect(packageVersion('@agentctl/core', pathToFileURL(join(app, 'main.js')).href)).toBe('7.3.1');
  });

  it("finds an installed core's package.json above its bundle, which its exports point at", async () => {
    const app = await mkdtemp(join(tmpdir(), 'agentctl-version-'));
    dirs.push(app);
    const core = join(app, 'node_modules/@agentctl/core');
    await mkdir(join(core, 'dist/bundle'), { recursive: true });
    await writeFile(
      join(core, 'package.json'),
      JSON.stringify({
        name: '@agentctl/core',
        version: '7.4.0',
        exports: { '.': { default: './dist/bundle/index.js' } },
      }),
    );
    await writeFile(join(core, 'dist/bundle/index.js'), '');
    expect(packageVersion('@agentctl/core', pathToFileURL(join(app, 'main.js')).href)).toBe('7.4.0');
  });

  it('gives the CLI and core versions of their package.json files', async () => {
    expect(VERSION).toBe(await versionOf('../package.json'));
    expect(packageVersion('@agentctl/cli')).toBe(VERSION);
    expect(packageVersion('@agentctl/core')).toBe(await versionOf('../../core/package.json'));
  });
});
