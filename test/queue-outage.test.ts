import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, fixtureProject, removeTempDirs } from './support/cli.js';
import { startLongRunning } from './support/long-running.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { waitFor } from './support/wait-for.js';
import { startWorker, stopWorkers } from './support/worker.js';

// The queue's Redis named wrongly, or going away under a worker and a follower and coming back:
// clear errors with the right exit code, never a stack trace, and work goes on once it is back.

const PROJECT_FILE = `kind: project
name: outage
queue:
  lock_duration: 2s
  stalled_interval: 1s
`;

let redis: RedisProcess;
let dir: string;

beforeAll(async () => {
  redis = await startRedis();
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT_FILE);
}, 60_000);

afterAll(async () => {
  await stopWorkers();
  await redis?.stop();
  await removeTempDirs();
});

describe('the queue URL names a database', () => {
  it('one that is not a number is bad usage (exit 2), one the server lacks fails (exit 1), before anything runs', async () => {
    const word = `${redis.url}/abc`;
    const missing = `${redis.url}/99`;
    const [worker, run, schedules, absent] = await Promise.all([
      agentctl(['worker'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: word }, timeoutMs: 30_000 }),
      agentctl(['run', 'clerk', 'x', '--queue'], {
        cwd: dir,
        env: { AGENTCTL_QUEUE_URL: word },
        timeoutMs: 30_000,
      }),
      agentctl(['schedules', 'list'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: word }, timeoutMs: 30_000 }),
      agentctl(['worker'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: missing }, timeoutMs: 30_000 }),
    ]);
    for (const result of [worker, run, schedules]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`names the database "abc"`);
      expect(result.stderr).not.toContain('    at ');
    }
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain(`cannot reach the queue at ${missing}: it has no database 99`);
    expect(absent.stderr).not.toContain('    at ');
    expect(absent.stdout).not.toContain('worker ready');
  }, 60_000);
});

describe('Redis going away and coming back', () => {
  it('a worker and a follower print no stack trace while it is gone, and the worker takes runs once it is back', async () => {
    const env = { AGENTCTL_QUEUE_URL: redis.url, CRUNCH_SECONDS: '2' };
    const worker = await startWorker(dir, [], env);
    const follower = await startLongRunning(
      dir,
      ['run', 'slow', 'crunch it', '--queue', '--json'],
      env,
      /"type":"tool_call"/,
    );
    const port = redis.port;
    await redis.stop();
    // Long enough for both processes to fail several reconnects.
    await new Promise((done) => setTimeout(done, 1500));
    redis = await startRedis(port);
    // The restarted Redis is empty (no persistence): the old run is gone with it, new ones work.
    const again = await agentctl(['run', 'clerk', 'stamp it', '--queue'], {
      cwd: dir,
      env,
      timeoutMs: 60_000,
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('stamped');
    await follower.stop('SIGKILL');
    for (const stderr of [worker.stderr(), follower.stderr()]) {
      expect(stderr).not.toContain('    at ');
      expect(stderr).not.toContain('Unhandled error event');
    }
  }, 90_000);
});

describe('SIGTERM while Redis is away', () => {
  it('the worker stops after its grace, says the queue does not answer, and exits 1 instead of hanging', async () => {
    const own = await startRedis();
    try {
      const worker = await startWorker(dir, ['--grace', '500ms'], { AGENTCTL_QUEUE_URL: own.url });
      await own.stop();
      const bound = new Promise<'hang'>((done) => setTimeout(() => done('hang'), 30_000).unref());
      worker.child.kill('SIGTERM');
      const code = await Promise.race([worker.exited, bound]);
      if (code === 'hang') worker.child.kill('SIGKILL');
      expect(code).toBe(1);
      expect(worker.stderr()).toContain(
        'the queue does not answer, so 0 run(s) go back to it once their lock lapses',
      );
      expect(worker.stderr()).not.toContain('    at ');
    } finally {
      await own.stop();
    }
  }, 60_000);
});

describe('Ctrl-C while Redis is away', () => {
  it('run --queue stops following at once (exit 130) instead of waiting for Redis', async () => {
    const own = await startRedis();
    try {
      // No worker: the run waits in the queue while run --queue follows it.
      const child = spawn(process.execPath, [BIN, 'run', 'clerk', 'stamp it', '--queue'], {
        cwd: dir,
        env: cliEnv({ AGENTCTL_QUEUE_URL: own.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
      await waitFor(() => stderr.includes('queued run'), 'queued run', 30_000);
      await own.stop();
      child.kill('SIGINT');
      const bound = new Promise<'hang'>((done) => setTimeout(() => done('hang'), 20_000).unref());
      const code = await Promise.race([exited, bound]);
      if (code === 'hang') child.kill('SIGKILL');
      expect(code).toBe(130);
      expect(stderr).toContain('stopped following; run');
    } finally {
      await own.stop();
    }
  }, 60_000);
});
