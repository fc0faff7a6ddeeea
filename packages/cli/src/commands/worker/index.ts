import { watchRunCode } from '@agentctl/config';
import { RunQueue, RunWorker, syncSchedules } from '@agentctl/queue';
import { CliError, EXIT } from '../../cli-error.js';
import { closeWithin } from '../../close-within.js';
import type { Io } from '../../io.js';
import { openRuntime } from '../../project.js';
import { connectQueue, queueSettings, requireQueueUrl, scheduleDefinitions } from '../../queue-settings.js';
import { projectSessionStore } from '../../session-store.js';
import { nextStop, untilStopped } from '../../until-stopped.js';
import { projectSource } from '../serve/project-source.js';
import { duration, integer } from '../serve/serve-options.js';

/**
 * `agentctl worker`: takes queued runs from the project's queue and runs them on the project's
 * session store until SIGTERM or SIGINT, which let running jobs finish for `--grace` and hand the
 * rest back to the queue.
 */
export async function workerCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const graceMs = duration(raw.grace, '--grace', 30_000);
  // A worker takes no --model: the key is the one way out.
  const { project, runtime } = await openRuntime(raw, io, undefined, { requireKeys: 'warn', keyHint: '' });
  const settings = queueSettings(project, io.env);
  const concurrency = integer(raw.concurrency, '--concurrency', settings.concurrency ?? 1, 1, 1000);
  let connection: Awaited<ReturnType<typeof connectQueue>>;
  try {
    connection = await connectQueue(requireQueueUrl(settings, 'agentctl worker'), settings.urlFrom);
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
  const store = await projectSessionStore(runtime.root);
  const source = projectSource(() => ({ runtime, generation: 1, release: () => undefined }), store);
  const worker = new RunWorker({
    connection,
    agents: (name) => source.lease(name),
    concurrency,
    lockDurationMs: settings.lockDurationMs,
    stalledIntervalMs: settings.stalledIntervalMs,
    maxStalledCount: settings.maxStalled,
    project: settings.project,
    log: (line) => io.stderr(`${line}\n`),
  });
  const producer = new RunQueue(connection, {
    attempts: settings.attempts,
    backoff: settings.backoff,
    project: settings.project,
  });
  const schedules = scheduleDefinitions(project);
  try {
    await worker.start();
    // Every worker registers the project's schedules: upserts are idempotent, the last one wins.
    await syncSchedules(producer, schedules);
  } catch (error) {
    await worker.close(0).catch(() => undefined);
    await producer.close();
    connection.disconnect();
    await runtime.dispose();
    throw new CliError(`cannot reach the queue: ${(error as Error).message}`, EXIT.failed);
  }
  // As under `serve`: a tool holding the thread past its timeout is named, not the process ended.
  const unwatch = watchRunCode({ fatal: false });
  io.stdout(`worker ready: ${concurrency} run(s) at once, ${schedules.length} schedule(s)\n`);
  await untilStopped();
  unwatch();
  io.stderr(`shutting down: ${worker.active} run(s) in flight, up to ${graceMs} ms to finish\n`);
  // A second signal cuts the grace short: the runs left go back to the queue now.
  const hurry = nextStop();
  hurry.signal.addEventListener('abort', () =>
    io.stderr(`second signal: handing the ${worker.active} run(s) still in flight back to the queue now\n`),
  );
  const { finished, handedBack, unreachable } = await worker.close(graceMs, hurry.signal);
  hurry.dispose();
  if (unreachable)
    io.stderr(
      `stopped: ${finished} run(s) finished; the queue does not answer, so ${handedBack} run(s) go back to it once their lock lapses (queue.lock_duration)\n`,
    );
  else io.stderr(`stopped: ${finished} run(s) finished, ${handedBack} handed back to the queue\n`);
  await producer.close();
  connection.disconnect();
  await closeWithin(io, async () => {
    await runtime.dispose();
    await (store as { close?: () => Promise<void> }).close?.();
  });
  return unreachable ? EXIT.failed : EXIT.ok;
}
