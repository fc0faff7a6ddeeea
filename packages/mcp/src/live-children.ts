const live = new Set<number>();
let hooked = false;

// A CLI that exits without disposing (an uncaught error, process.exit) must not leave MCP
// servers behind; 'exit' handlers may only do synchronous work, which kill is.
function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Remembers a child process so it is killed if this process exits first. */
export function trackChild(pid: number): void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAll);
  }
}

/** Forgets a child process that has ended. */
export function untrackChild(pid: number): void {
  live.delete(pid);
}

/** True while a process with this id exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
