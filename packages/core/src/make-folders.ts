import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Creates the folder `path` and the folders above it that are missing, as `mkdir -p` does, and
 * returns the first one it created (undefined when all were there). Unlike Node's own
 * `mkdir(path, { recursive: true })`, which retries forever where the system answers `ENOENT` for
 * a folder whose parent exists (under `/proc`), it fails at once: each folder is made on its own,
 * and the system's refusal is thrown as it came (`ENOENT`, `ENOTDIR`, `EACCES`, `EROFS`, ...), its
 * message naming the folder, after removing the (empty) folders this call made.
 *
 * @example
 * await makeFolders('/tmp/project/agents'); // '/tmp/project' when neither existed
 */
export async function makeFolders(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    const info = await stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info) break;
    missing.push(at);
    if (dirname(at) === at) break;
  }
  missing.reverse();
  const made: string[] = [];
  for (const folder of missing) {
    try {
      await mkdir(folder);
      made.push(folder);
    } catch (error) {
      // Made meanwhile by another process: what was asked for is there.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (await isFolder(folder))) continue;
      for (const done of made.reverse()) await rmdir(done).catch(() => undefined);
      throw error;
    }
  }
  return made[0];
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}
