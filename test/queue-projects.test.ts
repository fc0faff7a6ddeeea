import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { startWorker, stopWorkers } from './support/worker.js';

// Two projects pointed at one Redis (both left at redis://127.0.0.1:6379, say): a worker of one
// never runs the other's runs on its own agents and store, and never removes its schedules.

let redis: RedisProcess;
let alpha: string;
let beta: string;
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  env = { AGENTCTL_QUEUE_URL: redis.url };
  alpha = await fixtureProject('queue');
  await writeFile(join(alpha, 'agentctl.yaml'), 'kind: project\nname: alpha\n');
  beta = await fixtureProject('queue');
  await writeFile(join(beta, 'agentctl.yaml'), 'kind: project\nname: beta\n');
  // beta has the same agents but no schedule.
  await rm(join(beta, 'agents/schedules.yaml'));
}, 60_000);

afterAll(async () => {
  await stopWorkers();
  await redis?.stop();
  await removeTempDirs();
});

describe('two projects on one queue', () => {
  it("a worker refuses another project's run, naming both, and leaves its schedules alone", async () => {
    const alphaWorker = await startWorker(alpha, [], env);
    await alphaWorker.stop('SIGTERM');
    // alpha's worker registered its schedule; beta's, which has none, starts next.
    const betaWorker = await startWorker(beta, [], env);
    const run = await agentctl(['run', 'clerk', 'stamp it', '--queue'], {
      cwd: alpha,
      env,
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('of project "alpha" was taken by a worker of project "beta"');
    expect(run.stderr).toContain('give each its own Redis database');
    expect(run.stdout).not.toContain('stamped');
    expect(betaWorker.stderr()).toContain('of project "alpha" was taken by a worker of project "beta"');
    const listed = await agentctl(['schedules', 'list', '--json'], { cwd: alpha, env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'new-year', registered: true }]);
  }, 90_000);
});
