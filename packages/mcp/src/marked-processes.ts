import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The environment variable, set to a value of its own for each server, that every process an MCP
 * server starts inherits: one that left the server's process group (a browser started `detached`,
 * a daemon that called setsid) is still found by it.
 */
export const MARKER_VARIABLE = 'AGENTCTL_MCP_SERVER';

/** A new value of {@link MARKER_VARIABLE}, for one server process. */
export function newMarker(): string {
  return randomUUID();
}

/**
 * Kills (SIGKILL) every process of this user whose environment has {@link MARKER_VARIABLE} set to
 * `marker`, and returns their ids. Linux only (it reads /proc); elsewhere it finds nothing.
 * Synchronous, so that it can run in an 'exit' handler; it reads a few hundred small files.
 */
export function killMarked(marker: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const entry = `${MARKER_VARIABLE}=${marker}`;
  const killed: number[] = [];
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      // Gone meanwhile, or another user's process: not one of ours.
      continue;
    }
    if (!environ.split('\0').includes(entry)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}

// The markers of the servers running now, swept when this process exits: an exit that does not
// wait for the servers to close (a signal, process.exit) kills their groups, watcher included.
const running = new Set<string>();
let hooked = false;

/** Remembers a running server's marker, so that its processes are killed if this process exits first. */
export function markRunning(marker: string): void {
  running.add(marker);
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const live of running) killMarked(live);
  });
}

/** Forgets the marker of a server that has ended. */
export function markEnded(marker: string): void {
  running.delete(marker);
}
