import { readdirSync, readFileSync } from 'node:fs';

// Running, not a zombie waiting for its parent to read its exit.
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Live processes (other than this one) whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && running(Number(pid)))
        found.push(Number(pid));
    } catch {
      // ended while we looked
    }
  }
  return found;
}
