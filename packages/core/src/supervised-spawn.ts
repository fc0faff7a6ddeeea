import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findCommand } from './find-command.js';

// Run by /bin/sh as the leader of a new process group: it starts a watcher in the group, then
// becomes the program (same pid). The watcher blocks on fd 3, a pipe whose other end only this
// process holds; the kernel closes it however this process ends, SIGKILL included, and the watcher
// then kills the whole group. It is a fresh `sh -c` so that it holds none of the program's pipes
// nor its command line.
const SUPERVISE =
  '(exec /bin/sh -c \'read -r _; kill -9 0\' agentctl-watch <&3 >/dev/null 2>&1) & exec "$@" 3<&-';
// The same, for a program given a marker: before the group, the watcher kills every process whose
// environment holds the marker (`$1`, as NAME=VALUE), those that left the group included, but not
// itself; one grep reads them all. Where there is no /proc (or no grep -z), it finds nothing.
const SUPERVISE_MARKED =
  '(exec /bin/sh -c \'read -r _; for f in $(grep -lxzF "$1" /proc/[0-9]*/environ 2>/dev/null); do p=${f#/proc/}; p=${p%/environ}; [ "$p" = "$$" ] || kill -9 "$p"; done 2>/dev/null; kill -9 0\' agentctl-watch "$AGENTCTL_WATCH_MARKER" <&3 >/dev/null 2>&1) & unset AGENTCTL_WATCH_MARKER; exec "$@" 3<&-';
// The shell exports variables of its own (`PWD`; bash also `SHLVL`): the program is to see only
// the environment it was given.
const OWN_VARIABLES = ['PWD', 'SHLVL'];

let supervising: boolean | undefined;

// Windows has no process groups, and an image without a shell (distroless) no /bin/sh: there the
// program is spawned directly, as before the watcher, and only its owner and exit handlers end it.
function canSupervise(): boolean {
  supervising ??= process.platform !== 'win32' && existsSync('/bin/sh');
  return supervising;
}

/** Options of {@link spawnSupervised}. */
export interface SupervisedSpawnOptions {
  cwd?: string;
  env: Record<string, string | undefined>;
  /**
   * A variable (`NAME=VALUE`, one of `env`) that marks the program's processes: those it starts
   * outside its group inherit it, and the watcher also kills every process holding it.
   */
  marker?: string;
}

/**
 * Spawns `command` in a process group of its own (stdin, stdout and stderr piped) that cannot
 * outlive this process: beside the usual ends (its owner's close, {@link recordChild} on exit and
 * on signals), a watcher in the group kills it when this process is gone, even by SIGKILL, which
 * no handler sees. A command that cannot be found throws an error with `code` ENOENT, as spawn
 * reports it. On Windows, and where there is no /bin/sh, the program is spawned directly.
 *
 * @example
 * const child = spawnSupervised('node', ['server.js'], { cwd: root, env: { PATH: process.env.PATH } });
 */
export function spawnSupervised(
  command: string,
  args: readonly string[],
  options: SupervisedSpawnOptions,
): ChildProcess {
  const cwd = options.cwd ?? process.cwd();
  if (!canSupervise())
    return spawn(command, args, { cwd, env: options.env, shell: false, detached: true, stdio: 'pipe' });
  if (!findCommand(command, cwd, options.env))
    throw Object.assign(new Error(`spawn ${command} ENOENT`), {
      code: 'ENOENT',
      path: command,
      syscall: `spawn ${command}`,
    });
  const unset = OWN_VARIABLES.filter((name) => options.env[name] === undefined);
  const supervise = options.marker === undefined ? SUPERVISE : SUPERVISE_MARKED;
  const script = unset.length > 0 ? `unset ${unset.join(' ')}; ${supervise}` : supervise;
  const env =
    options.marker === undefined ? options.env : { ...options.env, AGENTCTL_WATCH_MARKER: options.marker };
  return spawn('/bin/sh', ['-c', script, 'agentctl-child', command, ...args], {
    cwd,
    env,
    shell: false,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
}
