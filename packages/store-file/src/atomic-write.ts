import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `data` to `path` so a reader (or a crash at any moment) sees either the old file or the new
 * one in full: write a temp file, fsync it, rename it over the target, fsync the directory.
 * The temp name is fixed per target, so callers must hold the target's lock; a temp file left by a
 * killed writer is simply overwritten by the next one, and one whose write failed is removed.
 */
export async function writeFileAtomic(path: string, data: string, durable = true): Promise<number> {
  const temp = `${path}.tmp`;
  const buffer = Buffer.from(data, 'utf8');
  const handle = await open(temp, 'w');
  try {
    try {
      await handle.writeFile(buffer);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    // A write the disk refused (full, quota) leaves no temp file beside the target.
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (durable) await syncDirectory(dirname(path));
  return buffer.length;
}

/** Makes a rename in `dir` durable; some platforms cannot open a directory, which is not an error. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows and some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
