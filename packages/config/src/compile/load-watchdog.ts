import { displayPath } from '../paths.js';
import { moduleLoadLimitMs } from '../watch/module-load-limit.js';
import { watchMainThread } from './main-thread-watchdog.js';

/**
 * Watches an import made in this thread until it settles: a module whose top level runs the
 * module load limit without yielding (`while (true) {}`) ends the process with its name on stderr
 * instead of hanging it. (`validate` imports in a worker it can give up on instead.)
 */
export function watchImport<T>(path: string, importing: Promise<T>): Promise<T> {
  const name = displayPath(process.cwd(), path);
  return importing.finally(watchMainThread({ kind: 'import', name, limitMs: moduleLoadLimitMs() }));
}
