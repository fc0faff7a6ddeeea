// One table per process, not per copy of this module (a bundled CLI carries its own copy of core,
// and plugins loaded beside it another), in memory a watchdog thread can read when the main thread
// is stuck and no handler of it can run.
const TABLE = Symbol.for('agentctl.childTable');
const SLOTS = 256;
const processWide = globalThis as { [TABLE]?: Int32Array };

/**
 * The ids of child processes that must not outlive this process, in shared memory: a thread that
 * ends the process with SIGKILL (no 'exit' handler runs then) reads it to end them first. Empty
 * slots are 0; a slot may be cleared at any time.
 */
export function childTable(): Int32Array {
  processWide[TABLE] ??= new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  return processWide[TABLE];
}

/**
 * Records a child process (the leader of a process group of its own, or a plain child) that must
 * end with this process, however it ends. A full table records nothing: the child then relies on
 * the 'exit' and signal handlers of its owner alone.
 */
export function recordChild(pid: number): void {
  const table = childTable();
  for (let i = 0; i < table.length; i++) if (Atomics.compareExchange(table, i, 0, pid) === 0) return;
}

/** Forgets a child recorded by {@link recordChild}, once it has ended or been ended. */
export function forgetChild(pid: number): void {
  const table = childTable();
  for (let i = 0; i < table.length; i++) if (Atomics.compareExchange(table, i, pid, 0) === pid) return;
}
