import type { ChildProcess } from 'node:child_process';
import { forgetChild, guardChildren, recordChild } from '../child-table.js';
import { spawnSupervised } from '../supervised-spawn.js';

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  /** The working folder. */
  cwd: string;
  /** The whole environment of the program (nothing is inherited). */
  env: Record<string, string>;
  /** Bytes of stdout and stderr together after which the program is stopped. */
  maxOutputBytes: number;
  /** Written to the program's standard input, which is then closed. */
  stdin?: string;
  /** Aborting kills the program and everything it started in its process group. */
  signal: AbortSignal;
}

/** How a program ended and what it wrote. */
export interface ProcessOutput {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The program wrote more than it was allowed to and was stopped. */
export class OutputLimitError extends Error {
  constructor(
    readonly program: string,
    readonly limit: number,
  ) {
    super(`${program} wrote more than ${limit} bytes of output; stopped`);
    this.name = new.target.name;
  }
}

// Once the program has exited, output still buffered in the pipes gets this long to arrive; a
// descendant that left the process group and still holds a pipe is not waited for beyond it.
const DRAIN_MS = 100;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs a program (never through a shell) in a process group of its own. Aborting, or writing
 * more than `maxOutputBytes`, kills the whole group; when the program exits, what it left behind
 * in its group is killed and pipes held open by descendants that left the group are closed, so
 * the call never waits on them.
 *
 * @example
 * const { code, stdout } = await runProcess(['git', 'status'], { cwd, env: { PATH }, maxOutputBytes: 65536, signal });
 */
export function runProcess(argv: readonly string[], options: RunProcessOptions): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(options.signal.reason);
    let child: ChildProcess;
    guardChildren();
    try {
      // In a group of its own, which a watcher in it ends if agentctl is killed (SIGKILL) first.
      child = spawnSupervised(argv[0], argv.slice(1), { cwd: options.cwd, env: options.env });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return reject(new Error(`cannot run ${argv[0]}: ${code ?? (error as Error).message}`));
    }
    const pid = child.pid;
    // Recorded so that no tool outlives agentctl, however it ends (exit, a signal, its watchdog).
    if (pid !== undefined) recordChild(pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = (failure?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(drainTimer);
      options.signal.removeEventListener('abort', onAbort);
      killGroup(pid);
      if (pid !== undefined) forgetChild(pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      if (failure !== undefined) return reject(failure);
      resolve({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    };
    const onAbort = () =>
      finish(options.signal.reason instanceof Error ? options.signal.reason : new Error('cancelled'));
    options.signal.addEventListener('abort', onAbort, { once: true });

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > options.maxOutputBytes) finish(new OutputLimitError(argv[0], options.maxOutputBytes));
      else into.push(chunk);
    };
    child.stdout?.on('data', collect(out));
    child.stderr?.on('data', collect(err));
    child.on('error', (error) =>
      finish(new Error(`cannot run ${argv[0]}: ${(error as NodeJS.ErrnoException).code ?? error.message}`)),
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.stdin ?? '');
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // What the program started and left running in its group dies with it.
      killGroup(pid);
      // The timer can fire before the pipes were read at all: when the loop was busy past
      // DRAIN_MS after the exit, timers run first in the next pass. The immediate runs after that
      // pass's poll, so what the program wrote before exiting has been read by then.
      drainTimer = setTimeout(() => setImmediate(() => finish()), DRAIN_MS);
    });
    child.on('close', () => finish());
  });
}
