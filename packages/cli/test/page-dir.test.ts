import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageDir } from '../src/page-dir.js';

// A layout like an installed CLI: <root>/node_modules/@agentctl/cli/dist/bundle/main.js asks.
let root: string;
let asker: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentctl-page-dir-'));
  asker = join(root, 'node_modules/@agentctl/cli/dist/bundle/main.js');
  await mkdir(join(root, 'node_modules/@agentctl/cli/dist/bundle'), { recursive: true });
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('pageDir', () => {
  it('says the page is not installed, then not built, then finds its dist folder', async () => {
    expect(() => pageDir({}, asker)).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/dev UI is not installed/), exitCode: 3 }),
    );
    const ui = join(root, 'node_modules/@agentctl/ui');
    await mkdir(ui, { recursive: true });
    await writeFile(join(ui, 'package.json'), '{"name":"@agentctl/ui"}');
    expect(() => pageDir({}, asker)).toThrow(
      /dev UI is not built: .*dist has no index\.html \(run `pnpm build`\)/,
    );
    await mkdir(join(ui, 'dist'));
    await writeFile(join(ui, 'dist/index.html'), '<!doctype html>');
    expect(pageDir({}, asker)).toBe(join(ui, 'dist'));
  });

  it('takes AGENTCTL_UI_DIR first, and refuses one without index.html', async () => {
    const own = join(root, 'own-page');
    await mkdir(own);
    expect(() => pageDir({ AGENTCTL_UI_DIR: own }, asker)).toThrow(
      /AGENTCTL_UI_DIR=.*own-page has no index\.html/,
    );
    await writeFile(join(own, 'index.html'), '<!doctype html>');
    expect(pageDir({ AGENTCTL_UI_DIR: own }, asker)).toBe(own);
  });
});
