import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';

// What execvp searches when PATH is unset (glibc's and musl's default).
const DEFAULT_PATH = '/bin:/usr/bin';

function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether `command` names a program that could be started as spawn would start it: a name with a
 * `/` taken from `cwd` (that exists), any other name looked up on the `PATH` of the environment it will run in.
 * A server started behind a supervising shell is found by the shell, which only says "not found"
 * on its stderr; this keeps a missing command the clear start error it is when spawned directly.
 */
export function findCommand(command: string, cwd: string, env: Record<string, string | undefined>): boolean {
  if (command === '') return false;
  // A path that exists but cannot run is left to the shell, whose "Permission denied" says so.
  if (command.includes('/')) return existsSync(path.resolve(cwd, command));
  const dirs = (env.PATH ?? DEFAULT_PATH).split(':');
  // An empty PATH entry is the working directory, as for execvp.
  return dirs.some((dir) => runnable(path.resolve(cwd, dir || '.', command)));
}
