import { readdirSync, readFileSync } from 'node:fs';

// The fields of /proc/PID/stat after the command name: state, ppid, pgrp, ...
function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

// Running, not a zombie waiting for its parent to read its exit.
function running(pid: number): boolean {
  const fields = stat(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

/** The process group of `pid`, or undefined once it is gone. */
export function processGroupOf(pid: number): number | undefined {
  const group = stat(pid)?.[2];
  return group === undefined ? undefined : Number(group);
}

/** Live processes (other than this one) in the process group `group`. */
export function processesInGroup(group: number): number[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid)
    .map(Number)
    .filter((pid) => processGroupOf(pid) === group && running(pid));
}

// An MCP server starts as `/bin/sh -c SUPERVISE ... SERVER ARGS` (its group's leader, which then
// execs the server) and forks its watcher, which for an instant, until it execs a plain
// `sh -c 'read ...'`, carries the same command line: not another server.
function watcherFork(pid: number, cmdline: string): boolean {
  return cmdline.includes('agentctl-watch') && processGroupOf(pid) !== pid;
}

/** Live processes (other than this one) whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(marker) && running(Number(pid)) && !watcherFork(Number(pid), cmdline))
        found.push(Number(pid));
    } catch {
      // ended while we looked
    }
  }
  return found;
}
