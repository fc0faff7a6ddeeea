import { type LongRunning, startLongRunning } from './long-running.js';

/** A running `agentctl worker` process. */
export type WorkerProcess = LongRunning;

const running: WorkerProcess[] = [];

/** Starts the real `agentctl worker ...` in `cwd` and resolves once it prints `worker ready`. */
export async function startWorker(
  cwd: string,
  args: readonly string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<WorkerProcess> {
  const worker = await startLongRunning(cwd, ['worker', ...args], env, /worker ready/);
  running.push(worker);
  return worker;
}

/** Kills every worker {@link startWorker} started; call it from `afterAll`. */
export async function stopWorkers(): Promise<void> {
  await Promise.all(running.splice(0).map((w) => w.stop('SIGKILL')));
}
