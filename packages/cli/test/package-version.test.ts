import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

// An app with @agentctl/core installed at `version`, its `default` export at `entry`: where the app's
// own module (main.js) is.
async function appWithCore(version: string, entry: string): Promise<string> {
  const app = await mkdtemp(join(tmpdir(), 'agentctl-version-'));
  dirs.push(app);
  const core = join(app, 'node_modules/@agentctl/core');
  await mkdir(dirname(join(core, entry)), { recursive: true });
  await writeFile(
    join(core, 'package.json'),
    JSON.stringify({ name: '@agentctl/core', version, exports: { '.': { default: entry } } }),
  );
  await writeFile(join(core, entry), '');
  return pathToFileURL(join(app, 'main.js')).href;
}

describe('packageVersion', () => {
  it('reads the version of the installed package a module resolves, not a version written in code', async () => {
    const from = await appWithCore('7.3.1', './dist/index.js');
    expect(packageVersion('@agentctl/core', from)).toBe('7.3.1');
  });

  it("finds an installed core's package.json above its bundle, which its exports point at", async () => {
    const from = await appWithCore('7.4.0', './dist/bundle/index.js');
    expect(packageVersion('@agentctl/core', from)).toBe('7.4.0');
  });

  it('gives the CLI and core versions of their package.json files', async () => {
    expect(VERSION).toBe(await versionOf('../package.json'));
    expect(packageVersion('@agentctl/cli')).toBe(VERSION);
    expect(packageVersion('@agentctl/core')).toBe(await versionOf('../../core/package.json'));
  });
});
