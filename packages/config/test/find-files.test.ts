import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { findFiles } from '../src/load/find-files.js';
import { project } from './helpers.js';

const rel = (root: string, files: string[]) => files.map((f) => f.slice(root.length + 1));

describe('findFiles', () => {
  it('reads a symlinked file and folder inside the project, each real file once, by its least path', async () => {
    const root = await project({
      'agents/a.yaml': '',
      'shared/b.yaml': '',
      'library/deep/c.yaml': '',
      'agents/notes.txt': '',
      'agents/.hidden.yaml': '',
    });
    symlinkSync('../shared/b.yaml', join(root, 'agents/b.yaml'));
    symlinkSync('../library', join(root, 'agents/lib'));
    // Reached directly and through the link: read once, as agents/a.yaml.
    symlinkSync('a.yaml', join(root, 'agents/z-again.yaml'));
    const found = await findFiles(root, ['agents/**/*.yaml']);
    expect(rel(root, found.files)).toEqual(['agents/a.yaml', 'agents/b.yaml', 'agents/lib/deep/c.yaml']);
    expect(found.linksOut).toEqual([]);
    // Both patterns name shared/b.yaml: the file is read once, by the least of its paths.
    const both = await findFiles(root, ['agents/*.yaml', 'shared/*.yaml']);
    expect(rel(root, both.files)).toEqual(['agents/a.yaml', 'agents/b.yaml']);
  });

  it('follows no link out of the project and tells of those that lead to wanted files; ends loops', async () => {
    const outside = await project({ 'x.yaml': '', 'agents-out/y.yaml': '', 'data/z.bin': '' });
    const root = await project({ 'agents/a.yaml': '' });
    symlinkSync(join(outside, 'x.yaml'), join(root, 'agents/x.yaml'));
    symlinkSync(join(outside, 'agents-out'), join(root, 'agents/more'));
    // A data folder outside holds nothing the patterns want: not a file agentctl should have read.
    symlinkSync(join(outside, 'data'), join(root, 'agents/data'));
    // The whole disk, and a loop back up: neither is crawled.
    symlinkSync('/', join(root, 'agents/disk'));
    symlinkSync('..', join(root, 'agents/up'));
    symlinkSync('missing.yaml', join(root, 'agents/dangling.yaml'));
    const found = await findFiles(root, ['agents/**/*.yaml']);
    expect(rel(root, found.files)).toEqual(['agents/a.yaml']);
    expect(rel(root, found.linksOut)).toEqual(['agents/more', 'agents/x.yaml']);
  });

  it('finds a file a pattern names literally, and excludes what `exclude` names', async () => {
    const root = await project({ 'agents/a.yaml': '', 'agents/b.yaml': '', 'one.yaml': '' });
    const found = await findFiles(root, ['one.yaml', 'agents/*.yaml'], ['agents/b.yaml']);
    expect(rel(root, found.files)).toEqual(['agents/a.yaml', 'one.yaml']);
    // Written as paths often are: `./` first, a doubled `/`.
    const loose = await findFiles(root, ['./one.yaml', 'agents//*.yaml'], ['./agents//b.yaml']);
    expect(rel(root, loose.files)).toEqual(['agents/a.yaml', 'one.yaml']);
  });

  it('leaves out what an excluded folder holds, as the glob library before it did', async () => {
    const root = await project({
      'agents/old/a.yaml': '',
      'agents/old/deep/b.yaml': '',
      'agents/new/c.yaml': '',
    });
    const found = async (exclude: string[]) =>
      rel(root, (await findFiles(root, ['agents/**/*.yaml'], exclude)).files);
    for (const folder of ['agents/old', 'agents/old/', 'agents/old/**'])
      expect(await found([folder])).toEqual(['agents/new/c.yaml']);
    expect(await found(['agents/old/*.yaml'])).toEqual(['agents/new/c.yaml', 'agents/old/deep/b.yaml']);
    expect(await found(['**/deep'])).toEqual(['agents/new/c.yaml', 'agents/old/a.yaml']);
  });

  it('matches no dot-name by a wildcard, and one a pattern names', async () => {
    const root = await project({
      'agents/.draft.yaml': '',
      'agents/.old/a.yaml': '',
      'agents/team/.config/c.yaml': '',
      'agents/team/b.yaml': '',
      'node_modules/x/agents/d.yaml': '',
    });
    expect(rel(root, (await findFiles(root, ['agents/**/*.yaml', '**/d.yaml'])).files)).toEqual([
      'agents/team/b.yaml',
    ]);
    expect(rel(root, (await findFiles(root, ['agents/*/.config/*.yaml'])).files)).toEqual([
      'agents/team/.config/c.yaml',
    ]);
  });

  it('answers as the glob library before it did, on random trees without links', async () => {
    // tinyglobby's answers (with `dot: false`, links not followed) are the reference, but for
    // two of its quirks left out here: `exclude: [agents/*/]` dropped agents/a.yaml too, and
    // `**/.hid/*.yaml` did not find .hid/ at the root.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const include = [
      ['agents/**/*.yaml'],
      ['**/*.yaml'],
      ['agents/*.yaml'],
      ['agents/*/x.yaml'],
      ['a*/**/*.y*ml'],
      ['**/b/*.yaml'],
      ['*.yaml'],
      ['agents/**'],
      ['agents/**/*.yaml', 'old/*.yaml'],
    ];
    const exclude = [[], ['agents/old'], ['**/old/**'], ['**/*.txt'], ['**/b'], ['agents/sub/*.yaml']];
    for (let tree = 0; tree < 8; tree++) {
      const root = await project({ 'agents/a.yaml': '' });
      const make = (dir: string, depth: number) => {
        mkdirSync(dir, { recursive: true });
        for (const file of ['x.yaml', 'a.yaml', '.d.yaml', 'n.txt', 'y.yml'])
          if (random(2)) writeFileSync(join(dir, file), '');
        if (depth < 3)
          for (const folder of ['agents', 'old', 'b', 'sub', '.hid', 'x'])
            if (random(3) === 0) make(join(dir, folder), depth + 1);
      };
      make(root, 0);
      for (const inc of include)
        for (const exc of exclude) {
          const before = await glob(inc, {
            cwd: root,
            onlyFiles: true,
            dot: false,
            followSymbolicLinks: false,
            ignore: [...exc, '**/node_modules/**', '**/.git/**'],
          });
          const now = rel(root, (await findFiles(root, inc, exc)).files);
          expect(now, `${inc} minus ${exc}`).toEqual(before.sort());
        }
    }
  });
});
