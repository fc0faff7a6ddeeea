import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { childTable } from '@agentctl/core';

/** Something the main thread is doing that must not hold it for good. */
export type WatchedWork =
  /** A module being imported: it may hold the thread `limitMs` at a stretch (its top level's loop). */
  | { kind: 'import'; name: string; limitMs: number }
  /**
   * A tool call: it may hold the thread, without a break, past its timeout `limitMs` (counted from
   * `startedAt`, epoch ms) for a second at most. `fatal` ends the process then; otherwise a warning
   * is written once (a server whose other runs wait for it).
   */
  | {
      kind: 'tool';
      name: string;
      limitMs: number;
      startedAt: number;
      fatal: boolean;
      /** The end of the run's scope (a test's timeout), epoch ms: the call is held to it too. */
      deadline?: { at: number; what: string };
    }
  /**
   * Other code a run calls that no timer can stop once it loops: a module middleware. `name` says
   * what it is (``middleware `x` ``), `during` what it was doing (the action). It may hold the
   * thread `limitMs` at a stretch; `fatal` as for a tool. Being the latest watch opened, it is also
   * named when a tool call it wraps is past its timeout.
   */
  | { kind: 'code'; name: string; during: string; limitMs: number; fatal: boolean };

// The watchdog thread. It sleeps until work is watched, then watches the main thread's heartbeat:
// while the main thread runs its event loop (an import or a tool waiting on I/O), the beat moves;
// code that never yields (an endless loop) stops it, and no code of the main thread can run again
// to report it. The watchdog then says what was running, on stderr, and, when that is fatal,
// kills the process: SIGKILL, since a signal handler of the command would need the main thread too.
const SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const cells = new Int32Array(workerData.buffer);
const children = new Int32Array(workerData.children);
const { port } = workerData;
const watched = new Map();
const warned = new Set();
const drain = () => {
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    const { id, work } = m.message;
    if (work) watched.set(id, work);
    else { watched.delete(id); warned.delete(id); }
  }
};
const seconds = (ms) => String(Math.round(ms / 100) / 10) + ' s';
const signal = (pid, name) => { try { process.kill(pid, name); } catch {} };
// No 'exit' or signal handler of the main thread runs under SIGKILL: the children it would end
// (MCP servers, each leading a process group of its own) are ended here first.
const stop = (text) => {
  writeSync(2, 'agentctl: ' + text + '\\n');
  for (let i = 0; i < children.length; i++) {
    const pid = Atomics.load(children, i);
    if (pid > 0) { signal(-pid, 'SIGKILL'); signal(pid, 'SIGKILL'); }
  }
  process.kill(process.pid, 'SIGKILL');
};
const report = (id, w, what) => {
  if (w.fatal) stop(what + '; stopped');
  else writeSync(2, 'agentctl: warning: ' + what + ': everything else in this process waits for it\\n');
  warned.add(id);
};
for (;;) {
  Atomics.wait(cells, 0, 0);
  let beat = Atomics.load(cells, 1);
  let since = Date.now();
  while (Atomics.load(cells, 0) !== 0) {
    Atomics.wait(cells, 1, beat, 100);
    drain();
    const now = Atomics.load(cells, 1);
    if (now !== beat) { beat = now; since = Date.now(); continue; }
    const at = Date.now();
    const held = at - since;
    const imports = [...watched.values()].filter((w) => w.kind === 'import');
    if (imports.length > 0 && held >= imports[0].limitMs) {
      stop(imports.map((w) => w.name).join(', ') + ' never finished loading: its top-level code ran ' +
        seconds(imports[0].limitMs) + ' without yielding (an endless loop?); stopped');
    }
    // The code that holds the thread is, most likely, the one watched last: a stuck thread opens
    // no watch after it, and code the run calls inside another (a middleware's next()) opens later.
    let latest;
    for (const [id, w] of watched) if (w.kind === 'code') latest = [id, w];
    // A middleware watched after a tool call wraps it.
    const within = (id) => latest && latest[0] > id ? ' (in ' + latest[1].name + ')' : '';
    for (const [id, w] of watched) {
      if (w.kind !== 'tool' || warned.has(id)) continue;
      const pastOwn = at - w.startedAt >= w.limitMs;
      const pastScope = w.deadline !== undefined && at >= w.deadline.at;
      if (held < Math.min(1000, w.limitMs) || !(pastOwn || pastScope)) continue;
      const past = pastOwn ? 'is past its ' + seconds(w.limitMs) + ' timeout' : 'is still running at the end of ' + w.deadline.what;
      report(id, w, 'tool \`' + w.name + '\`' + within(id) + ' ' + past +
        ' and has held the main thread ' + seconds(held) + ' without yielding (an endless loop, or long synchronous work?)');
    }
    if (latest && !warned.has(latest[0]) && held >= latest[1].limitMs) {
      const w = latest[1];
      report(latest[0], w, w.name + ' has held the main thread ' + seconds(held) + ' without yielding' +
        ' during ' + w.during + ' (an endless loop, or long synchronous work?)');
    }
  }
}
`;

interface Watchdog {
  worker: Worker;
  cells: Int32Array;
  port: MessagePort;
  timer: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
  watching: number;
}

// A second after the last work ends the thread is let go: a server imports its modules as it
// starts, a run calls its tools now and then, and neither should keep a thread (and its heap) for
// the rest of its life.
const IDLE_MS = 1000;
const BEAT_MS = 50;

let watchdog: Watchdog | undefined;
let ids = 0;

function started(): Watchdog {
  if (watchdog) return watchdog;
  const buffer = new SharedArrayBuffer(8);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { buffer, port: port2, children: childTable().buffer },
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
    watching: 0,
  };
  return watchdog;
}

/**
 * Watches work the main thread does until the returned function is called: work that holds the
 * thread past its limit without yielding is reported on stderr by a thread of its own, and, when
 * fatal, ends the process (no code of the main thread could ever run again to do either).
 */
export function watchMainThread(work: WatchedWork): () => void {
  const dog = started();
  clearTimeout(dog.idle);
  const id = ids++;
  dog.port.postMessage({ id, work });
  dog.watching++;
  Atomics.store(dog.cells, 0, dog.watching);
  Atomics.notify(dog.cells, 0);
  dog.timer ??= setInterval(() => {
    Atomics.add(dog.cells, 1, 1);
    Atomics.notify(dog.cells, 1);
  }, BEAT_MS).unref();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    dog.port.postMessage({ id });
    dog.watching--;
    Atomics.store(dog.cells, 0, dog.watching);
    if (dog.watching > 0) return;
    clearInterval(dog.timer);
    dog.timer = undefined;
    dog.idle = setTimeout(() => {
      if (watchdog === dog) watchdog = undefined;
      dog.port.close();
      void dog.worker.terminate();
    }, IDLE_MS).unref();
  };
}
