import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { OpenedFolder } from '@agentctl/core';
import { glob } from 'tinyglobby';

// Never searched, whatever the pattern says.
const IGNORE = ['**/node_modules/**', '**/.git/**'];
// Names checked at once: each check is a call to the thread pool.
const BATCH = 64;

/**
 * The files under an opened folder whose path relative to it (with `/`) matches the glob
 * `pattern`, dot files only where the pattern names them, links not followed. The search starts
 * in the opened folder itself (pinned on Linux), and each name found is checked to be really
 * there, below it: a folder swapped for a link while the search ran listed names from elsewhere,
 * which such a name is not (gone from the folder, or reached through the link).
 *
 * @example
 * await filesMatching(folder, 'src/**\/*.ts'); // ['src/a.ts', 'src/lib/b.ts']
 */
export async function filesMatching(folder: OpenedFolder, pattern: string): Promise<string[]> {
  const found = await glob([pattern], {
    cwd: folder.at,
    ignore: IGNORE,
    onlyFiles: true,
    followSymbolicLinks: false,
    dot: false,
  });
  const kept: string[] = [];
  for (let at = 0; at < found.length; at += BATCH) {
    const batch = found.slice(at, at + BATCH);
    const reals = await Promise.all(
      batch.map((file) => realpath(path.join(folder.at, file)).catch(() => undefined)),
    );
    batch.forEach((file, i) => {
      if (reals[i] === path.join(folder.real, file)) kept.push(file);
    });
  }
  // Where the folder is not pinned, the names were listed by its path: it must still be the one opened.
  await folder.verify();
  return kept;
}
