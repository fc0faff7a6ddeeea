import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real `redis-server` on 127.0.0.1, with no persistence, in a temporary folder. */
export interface RedisProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

const REDIS_BIN = process.env.AGENTCTL_REDIS_SERVER ?? 'redis-server';

/**
 * Starts `redis-server` on a free loopback port, or on `port` (to bring a stopped one back),
 * (`--save '' --appendonly no`, data folder in a temporary directory) and resolves once it
 * accepts connections.
 */
export async function startRedis(port?: number): Promise<RedisProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'agentctl-redis-'));
  port ??= await freePort();
  const child = spawn(
    REDIS_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((done) => child.on('close', () => done()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
