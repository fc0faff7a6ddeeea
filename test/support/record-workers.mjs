// Loaded with `node --import` by a test: appends a line to the file named by RECORD_WORKERS for
// every worker thread the process starts, to show which commands start one (a thread costs a
// start-up as large as a small command's).
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

const log = process.env.RECORD_WORKERS;
if (log) {
  const Started = workerThreads.Worker;
  workerThreads.Worker = class RecordedWorker extends Started {
    constructor(...args) {
      super(...args);
      appendFileSync(log, 'worker\n');
    }
  };
  // Modules that import `{ Worker }` from node:worker_threads read the recorded class.
  syncBuiltinESMExports();
}
