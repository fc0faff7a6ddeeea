import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openFolder } from '@agentctl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { filesMatching } from '../../src/toolbox/files-matching.js';

let base = '';
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('filesMatching', () => {
  it('matches as a glob does, dot folders only when named, never through a link or into node_modules', async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-match-')));
    const root = path.join(base, 'root');
    for (const folder of ['src/lib', '.hidden', 'node_modules/x'])
      await mkdir(path.join(root, folder), { recursive: true });
    for (const file of [
      'a.ts',
      'src/b.ts',
      'src/lib/c.ts',
      'src/lib/d.md',
      '.hidden/e.ts',
      'node_modules/x/f.ts',
    ])
      await writeFile(path.join(root, file), '');
    await symlink(path.join(root, 'src'), path.join(root, 'linked'));
    await symlink(path.join(root, 'a.ts'), path.join(root, 'alias.ts'));
    const folder = await openFolder(root, '.');
    const files = async (pattern: string) => (await filesMatching(folder, pattern)).sort();
    try {
      expect(await files('**/*.ts')).toEqual(['a.ts', 'src/b.ts', 'src/lib/c.ts']);
      expect(await files('*.ts')).toEqual(['a.ts']);
      expect(await files('src/*')).toEqual(['src/b.ts']);
      expect(await files('src/**/*.{ts,md}')).toEqual(['src/b.ts', 'src/lib/c.ts', 'src/lib/d.md']);
      expect(await files('.hidden/*.ts')).toEqual(['.hidden/e.ts']);
      // Named through a link, a folder is searched by the glob, but what it lists is not below.
      expect(await files('linked/*')).toEqual([]);
    } finally {
      await folder.close();
    }
  });
});
