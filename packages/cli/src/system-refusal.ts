// What the machine refused, not what agentctl got wrong: a full disk, a read-only or forbidden
// folder, too many open files. Each gets a hint a user can act on.
const HINTS: Record<string, string> = {
  ENOSPC: 'the disk is full: free some space and run it again',
  EDQUOT: 'the disk quota is used up: free some space and run it again',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied: check who owns the folder',
  EPERM: 'the operation is not permitted here',
  EMFILE: 'too many files are open in this process: raise the limit (ulimit -n)',
  ENFILE: 'too many files are open on this machine',
  EIO: 'the disk reported an input/output error',
  EFBIG: 'the file is larger than this system allows it to be (see ulimit -f)',
};

/**
 * The one line a command prints when the system refused a file operation (a Node error with a
 * code such as ENOSPC or EACCES), or undefined for any other error.
 *
 * @example
 * systemRefusal(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
 * // 'ENOSPC: no space left on device, write (the disk is full: free some space and run it again)'
 */
export function systemRefusal(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  // A folder whose parent is there, yet "does not exist": a file system that makes none (/proc).
  const hint =
    code === 'ENOENT' && syscall === 'mkdir'
      ? 'no folder can be created there'
      : code === undefined
        ? undefined
        : HINTS[code];
  return hint && `${error.message} (${hint})`;
}
