// One table per process, not per copy of this module (a bundled CLI carries its own copy of core,
// and plugins loaded beside it another), in memory a watchdog thread can read when the main thread
// is stuck and no handler of it can run; and one set of handlers for it.
const TABLE = Symbol.for('agentctl.childTable');
const SLOTS = 256;
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

interface ProcessChildren {
  table: Int32Array;
  hooked: boolean;
}

const processWide = globalThis as { [TABLE]?: ProcessChildren };

function children(): ProcessChildren {
  processWide[TABLE] ??= { table: new Int32Array(new SharedArrayBuffer(SLOTS * 4)), hooked: false };
  return processWide[TABLE];
}

/**
 * The ids of child processes that must not outlive this process, in shared memory: a thread that
 * ends the process with SIGKILL (no 'exit' or signal handler runs then) reads it to end them
 * first. Empty slots are 0; a slot may be cleared at any time.
 */
export function childTable(): Int32Array {
  return children().table;
}

/** Kills `pid` and the process group it leads (SIGKILL), ignoring what is already gone. */
export function killChild(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // ESRCH: gone already.
    }
  }
}

function killRecorded(): void {
  const { table } = children();
  for (let i = 0; i < table.length; i++) {
    const pid = Atomics.exchange(table, i, 0);
    if (pid > 0) killChild(pid);
  }
}

// A signal nobody else handles kills the process without 'exit': the children (in process groups
// of their own, so the terminal's Ctrl-C does not reach them) are ended here, and the signal is
// raised again to die of it as before. When another listener handles it (a run's Ctrl-C, serve's
// shutdown), that one ends the work that started them, and this does nothing.
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killRecorded();
  for (const name of SIGNALS) process.off(name, onSignal);
  process.kill(process.pid, signal);
}

/**
 * Installs the handlers that end recorded children with this process (once per process). Called
 * before a child is spawned: until a listener exists, SIGTERM kills the process at once, and one
 * arriving between the spawn and {@link recordChild} would leave the child running.
 */
export function guardChildren(): void {
  const state = children();
  if (state.hooked) return;
  state.hooked = true;
  process.once('exit', killRecorded);
  // First in line: a handler that runs before it may remove itself (serve's shutdown does), and
  // this one would then see nobody else and kill the process under it.
  for (const name of SIGNALS) process.prependListener(name, onSignal);
}

/**
 * Records a child process (the leader of a process group of its own, or a plain child) that must
 * end with this process however it ends: on exit, on a signal nobody handles, and when a watchdog
 * kills the process. A full table records nothing: the child then relies on its owner alone.
 */
export function recordChild(pid: number): void {
  guardChildren();
  const { table } = children();
  for (let i = 0; i < table.length; i++) if (Atomics.compareExchange(table, i, 0, pid) === 0) return;
}

/** Forgets a child recorded by {@link recordChild}, once it has ended or been ended. */
export function forgetChild(pid: number): void {
  const { table } = children();
  for (let i = 0; i < table.length; i++) if (Atomics.compareExchange(table, i, pid, 0) === pid) return;
}
