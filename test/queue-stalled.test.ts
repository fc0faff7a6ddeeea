import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { startLongRunning } from './support/long-running.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { startWorker, stopWorkers } from './support/worker.js';

// `queue.max_stalled`: a run whose worker dies more often than that is failed by BullMQ without
// running it again, and whoever follows it is told so instead of waiting forever.

const PROJECT_FILE = `kind: project
name: stalled
queue:
  lock_duration: 1s
  stalled_interval: 500ms
  max_stalled: 0
`;

let redis: RedisProcess;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT_FILE);
  env = { AGENTCTL_QUEUE_URL: redis.url, CRUNCH_SECONDS: '60' };
}, 60_000);

afterAll(async () => {
  await stopWorkers();
  await redis?.stop();
  await removeTempDirs();
});

describe('queue.max_stalled', () => {
  it('a run that lost its worker more than max_stalled times ends its stream with an error naming it', async () => {
    const first = await startWorker(dir, [], env);
    // run --queue follows the run; it is ready once the worker runs the tool.
    const follower = await startLongRunning(
      dir,
      ['run', 'slow', 'crunch it', '--queue', '--json'],
      env,
      /"type":"tool_call"/,
    );
    await first.stop('SIGKILL');
    // The next worker finds the job stalled once (more than max_stalled: 0): BullMQ fails it.
    await startWorker(dir, [], env);
    const bound = new Promise<'hang'>((done) => setTimeout(() => done('hang'), 30_000).unref());
    const code = await Promise.race([follower.exited, bound]);
    if (code === 'hang') await follower.stop('SIGKILL');
    expect(code).toBe(3);
    expect(follower.stderr()).toContain(
      'the run failed in the queue: the run lost its worker more than queue.max_stalled (0) time(s); it is not run again',
    );
  }, 90_000);
});
