import type { Io } from './io.js';

/**
 * What `dev` and `serve --watch` do with a path they cannot watch: say so once per problem on
 * stderr (with the fix for Linux's limit of file watches) and go on watching the rest.
 */
export function watchErrorReporter(io: Io): (error: Error) => void {
  const said = new Set<string>();
  return (error) => {
    if (said.has(error.message)) return;
    said.add(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'ENOSPC'
        ? ' (the system limit of file watches is reached: raise fs.inotify.max_user_watches)'
        : '';
    io.stderr(
      `agentctl: cannot watch part of the project: ${error.message}${hint}; saves there are not seen\n`,
    );
  };
}
