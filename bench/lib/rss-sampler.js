// Samples the process's resident set size every few milliseconds from a worker thread. A
// zero-latency workload never yields to the event loop's timers, so a `setInterval` on the main
// thread would not fire until the work was over; a worker reads the same process-wide RSS meanwhile.
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { workerData } = require('node:worker_threads');
const cells = new Int32Array(workerData.buffer);
const pause = new Int32Array(new SharedArrayBuffer(4));
while (Atomics.load(cells, 0) === 0) {
  const kib = Math.round(process.memoryUsage.rss() / 1024);
  if (kib > Atomics.load(cells, 1)) Atomics.store(cells, 1, kib);
  Atomics.add(cells, 2, 1);
  Atomics.wait(pause, 0, 0, workerData.everyMs);
}
`;

/**
 * Starts sampling; `ready()` resolves once the first sample is taken (a worker takes tens of ms to
 * start, longer than a fast subject's whole batch on a loaded machine), `stop()` to the peak RSS in
 * bytes (the main thread's own last reading included) and the number of samples taken.
 */
export function startRssSampler(everyMs = 2) {
  const buffer = new SharedArrayBuffer(12);
  const cells = new Int32Array(buffer);
  const worker = new Worker(SOURCE, { eval: true, workerData: { buffer, everyMs } });
  return {
    /** The highest RSS seen so far, in bytes. */
    peak: () => Atomics.load(cells, 1) * 1024,
    async ready() {
      while (Atomics.load(cells, 2) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    },
    async stop() {
      const last = process.memoryUsage.rss();
      Atomics.store(cells, 0, 1);
      await new Promise((resolve) => worker.once('exit', resolve));
      return { peakBytes: Math.max(last, Atomics.load(cells, 1) * 1024), samples: Atomics.load(cells, 2) };
    },
  };
}
