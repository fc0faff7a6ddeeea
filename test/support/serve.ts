import { type ChildProcess, spawn } from 'node:child_process';
import { BIN, cliEnv } from './cli.js';

/** A running `agentctl serve` process. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Sends `signal` and resolves with the exit code (the process is killed after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/** Running servers, stopped by {@link stopServers}. */
const running: ServeProcess[] = [];

/**
 * Starts the real `agentctl serve --port 0 ...` in `cwd` and resolves once it prints
 * `listening on URL`; rejects with its stderr when it exits first.
 */
export function startServe(
  cwd: string,
  args: readonly string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
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
      reject(new Error(`agentctl serve did not start; stderr:\n${stderr}`));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)\n/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      const server: ServeProcess = {
        url: match[1],
        child,
        stderr: () => stderr,
        async stop(signal = 'SIGTERM', timeoutMs = 20_000) {
          if (!child.killed && child.exitCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      };
      running.push(server);
      resolve(server);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agentctl serve exited with ${code} before listening; stderr:\n${stderr}`));
    });
  });
}

/** Stops every server {@link startServe} started; call it from `afterAll`. */
export async function stopServers(): Promise<void> {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
}

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads a whole `text/event-stream` body into its events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event.event = line.slice(6).trim();
      else if (line.startsWith('id:')) event.id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}
