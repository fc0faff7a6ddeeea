import { access } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** The file that marks a project's root. */
export const PROJECT_FILE = 'agentctl.yaml';

/** The nearest folder at or above `cwd` holding agentctl.yaml, or undefined. */
export async function findProjectRoot(cwd: string): Promise<string | undefined> {
  let dir = resolve(cwd);
  for (;;) {
    try {
      await access(join(dir, PROJECT_FILE));
      return dir;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  }
}
