import { type ChildProcess, spawn } from 'node:child_process';
import { BIN, cliEnv } from './cli.js';

/** A running `agentctl worker` process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` and resolves with the exit code (the process is killed after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

const running: WorkerProcess[] = [];

/** Starts the real `agentctl worker ...` in `cwd` and resolves once it prints `worker ready`. */
export function startWorker(
  cwd: string,
  args: readonly string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<WorkerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'worker', ...args], {
      cwd,
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agentctl worker did not start; stderr:\n${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!stdout.includes('worker ready')) return;
      clearTimeout(timer);
      const worker: WorkerProcess = {
        child,
        exited,
        stderr: () => stderr,
        async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      };
      running.push(worker);
      resolve(worker);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agentctl worker exited with ${code} before it was ready; stderr:\n${stderr}`));
    });
  });
}

/** Kills every worker {@link startWorker} started; call it from `afterAll`. */
export async function stopWorkers(): Promise<void> {
  await Promise.all(running.splice(0).map((w) => w.stop('SIGKILL')));
}
