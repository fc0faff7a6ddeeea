import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { displayPath } from '../paths.js';
import { moduleLoadLimitMs } from '../watch/module-load-limit.js';

// The watchdog thread. It sleeps until an import is pending, then watches the main thread's
// heartbeat: while the main thread runs the event loop (an import waiting on I/O), the beat moves;
// a module whose top level never yields (an endless loop) stops it, and no code of the main
// thread can run again to report it. The watchdog then says which modules were loading, on
// stderr, and kills the process: SIGKILL, since a SIGTERM handler of the command would need the
// main thread too.
const SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const cells = new Int32Array(workerData.buffer);
const { port, limitMs } = workerData;
const pending = new Map();
const drain = () => {
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    const { add, remove } = m.message;
    if (add !== undefined) pending.set(add, (pending.get(add) ?? 0) + 1);
    if (remove !== undefined) {
      const left = (pending.get(remove) ?? 1) - 1;
      if (left > 0) pending.set(remove, left); else pending.delete(remove);
    }
  }
};
for (;;) {
  Atomics.wait(cells, 0, 0);
  let beat = Atomics.load(cells, 1);
  let since = Date.now();
  while (Atomics.load(cells, 0) !== 0) {
    Atomics.wait(cells, 1, beat, 100);
    const now = Atomics.load(cells, 1);
    if (now !== beat) { beat = now; since = Date.now(); continue; }
    if (Date.now() - since < limitMs || Atomics.load(cells, 0) === 0) continue;
    drain();
    const names = [...pending.keys()].join(', ') || 'a module';
    writeSync(2, 'agentctl: ' + names + ' never finished loading: its top-level code ran ' +
      (limitMs / 1000) + ' s without yielding (an endless loop?); stopped\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}
`;

interface Watchdog {
  worker: Worker;
  cells: Int32Array;
  port: MessagePort;
  timer: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
  pending: number;
}

// A second after the last import settles the thread is let go: a server imports its modules as
// it starts, and should not keep a thread (and its heap) for the rest of its life.
const IDLE_MS = 1000;

let watchdog: Watchdog | undefined;

function started(): Watchdog {
  if (watchdog) return watchdog;
  const buffer = new SharedArrayBuffer(8);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { buffer, port: port2, limitMs: moduleLoadLimitMs() },
    transferList: [port2],
    stdout: false,
    stderr: false,
  });
  // The watchdog never keeps the process alive, and never fails it when it cannot start.
  worker.unref();
  worker.on('error', () => undefined);
  port1.unref();
  watchdog = {
    worker,
    cells: new Int32Array(buffer),
    port: port1,
    timer: undefined,
    idle: undefined,
    pending: 0,
  };
  return watchdog;
}

/**
 * Watches an import made in this thread until it settles: a module whose top level runs the
 * module load limit without yielding (`while (true) {}`) ends the process with its name on stderr
 * instead of hanging it. (`validate` imports in a worker it can give up on instead.)
 */
export function watchImport<T>(path: string, importing: Promise<T>): Promise<T> {
  const dog = started();
  clearTimeout(dog.idle);
  const name = displayPath(process.cwd(), path);
  dog.port.postMessage({ add: name });
  dog.pending++;
  Atomics.store(dog.cells, 0, dog.pending);
  Atomics.notify(dog.cells, 0);
  dog.timer ??= setInterval(() => {
    Atomics.add(dog.cells, 1, 1);
    Atomics.notify(dog.cells, 1);
  }, 50).unref();
  const settled = (): void => {
    dog.port.postMessage({ remove: name });
    dog.pending--;
    Atomics.store(dog.cells, 0, dog.pending);
    if (dog.pending === 0) {
      clearInterval(dog.timer);
      dog.timer = undefined;
      dog.idle = setTimeout(() => {
        if (watchdog === dog) watchdog = undefined;
        dog.port.close();
        void dog.worker.terminate();
      }, IDLE_MS).unref();
    }
  };
  return importing.finally(settled);
}
