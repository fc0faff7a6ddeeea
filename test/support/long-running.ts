import { type ChildProcess, spawn } from 'node:child_process';
import { BIN, cliEnv } from './cli.js';

/** A running `agentctl` command that keeps running (serve, worker). */
export interface LongRunning {
  child: ChildProcess;
  /** What `ready` matched on stdout. */
  match: RegExpExecArray;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` and resolves with the exit code (the process is killed after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/**
 * Starts the real `agentctl ARGS` in `cwd` and resolves once its stdout matches `ready`; rejects
 * with its stderr when it exits first or is not ready within 30 s (it is then killed).
 */
export function startLongRunning(
  cwd: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  /** The command and its first arguments: the repository's built bin unless told (a bundle, an installed bin). */
  command: readonly string[] = [process.execPath, BIN],
): Promise<LongRunning> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], [...command.slice(1), ...args], {
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
      reject(new Error(`agentctl ${args[0]} did not start; stderr:\n${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = ready.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        child,
        match,
        exited,
        stderr: () => stderr,
        async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
          // Once signalled (by the test itself, say), a second signal would kill instead of asking.
          if (!child.killed && child.exitCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agentctl ${args[0]} exited with ${code} before it was ready; stderr:\n${stderr}`));
    });
  });
}
