import { forgetChild, recordChild } from '@agentctl/core';

// The servers this module tracks; core's table (one per process) ends them with the process.
const live = new Set<number>();

/** Sends `signal` to the process group led by `pid` (a server and all it started), ignoring a group already gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing of the group is left.
  }
}

/**
 * Remembers a child process so it is killed if this process exits, is killed by a signal nobody
 * handles, or is killed by the main-thread watchdog first.
 */
export function trackChild(pid: number): void {
  if (live.has(pid)) return;
  live.add(pid);
  recordChild(pid);
}

/** Forgets a child process that has ended. */
export function untrackChild(pid: number): void {
  if (live.delete(pid)) forgetChild(pid);
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
