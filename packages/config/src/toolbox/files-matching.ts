import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { type OpenedFolder, openFolder } from '@agentctl/core';
import { picomatch } from '../picomatch.js';

// Never searched, whatever the pattern says.
const SKIPPED = new Set(['node_modules', '.git']);
// A bound on folder listings, so a search of a huge tree ends.
const MAX_FOLDERS = 20_000;

/**
 * The files under an opened folder whose path relative to it (with `/`) matches the glob
 * `pattern`, dot files only where the pattern names them. Each folder is opened inside the one
 * listed before it, never through a link, so a folder swapped for a link to elsewhere while the
 * search runs is not entered; links are not followed, nor listed.
 *
 * @example
 * await filesMatching(folder, 'src/**\/*.ts'); // ['src/a.ts', 'src/lib/b.ts']
 */
export async function filesMatching(folder: OpenedFolder, pattern: string): Promise<string[]> {
  const match = picomatch([pattern], { dot: false });
  const { base } = picomatch.scan(pattern);
  // Without `**`, nothing deeper than the pattern's own folders can match.
  const depth = pattern.includes('**') ? Number.POSITIVE_INFINITY : pattern.split('/').length - 1;
  const dots = /(^|\/)\.[^./]/.test(pattern);
  const found: string[] = [];
  let listed = 0;
  const walk = async (at: OpenedFolder, rel: string, level: number): Promise<void> => {
    if (++listed > MAX_FOLDERS) return;
    const entries = await readdir(at.at, { withFileTypes: true }).catch(() => []);
    // Listed by path where the folder is not pinned: what was listed must be the folder opened.
    if (
      !(await at.verify().then(
        () => true,
        () => false,
      ))
    )
      return;
    for (const entry of entries) {
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isFile()) {
        if (match(name)) found.push(name);
      } else if (entry.isDirectory() && level < depth && !SKIPPED.has(entry.name)) {
        if (entry.name.startsWith('.') && !dots) continue;
        await inside(at, entry.name, (sub) => walk(sub, name, level + 1));
      }
    }
  };
  // The pattern's fixed folders (`src/lib` of `src/lib/*.ts`) are opened one in the other too.
  const start = async (at: OpenedFolder, segments: string[], rel: string): Promise<void> => {
    if (segments.length === 0) return walk(at, rel, rel === '' ? 0 : rel.split('/').length);
    const [first, ...rest] = segments;
    if (first === '.' || first === '') return start(at, rest, rel);
    await inside(at, first, (sub) => start(sub, rest, rel === '' ? first : `${rel}/${first}`));
  };
  await start(folder, base === '' ? [] : base.split('/'), '');
  return found;
}

// Runs `work` in the folder `name` of `at`, opened without following a link; nothing when it
// cannot be opened (gone, a link, a file).
async function inside(at: OpenedFolder, name: string, work: (sub: OpenedFolder) => Promise<void>) {
  const sub = await openFolder(path.join(at.at, name), name).catch(() => undefined);
  if (!sub) return;
  try {
    await work(sub);
  } finally {
    await sub.close();
  }
}
