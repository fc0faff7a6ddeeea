import { forgetChild, recordChild } from '@agentctl/core';

const live = new Set<number>();
let hooked = false;
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// A CLI that exits without disposing (an uncaught error, process.exit) must not leave MCP
// servers behind; 'exit' handlers may only do synchronous work, which kill is.
function killAll(): void {
  for (const pid of live) {
    // The server leads a process group of its own (see GroupStdioTransport): end all of it.
    signalGroup(pid, 'SIGKILL');
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

// A signal nobody else handles kills the process without 'exit'. Servers in their own process
// group do not get the terminal's Ctrl-C either, so they are ended here, and the signal is raised
// again to die of it as before. When another listener handles it (a run's Ctrl-C, serve's
// shutdown), that one disposes the toolsets and this does nothing.
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  for (const name of SIGNALS) process.off(name, onSignal);
  process.kill(process.pid, signal);
}

/** Sends `signal` to the process group led by `pid` (a server and all it started), ignoring a group already gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing of the group is left.
  }
}

/** Remembers a child process so it is killed if this process exits or is killed by a signal first. */
export function trackChild(pid: number): void {
  // Also where a watchdog that ends this process with SIGKILL (no handler runs then) finds it.
  if (!live.has(pid)) recordChild(pid);
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAll);
    for (const name of SIGNALS) process.on(name, onSignal);
  }
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
