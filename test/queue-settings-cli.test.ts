import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { freePort } from './support/free-port.js';

// `queue:` settings the queue would refuse: validate reports them at their line, and worker,
// serve and run --queue refuse them the same way (exit 1), never as an internal error.

afterAll(removeTempDirs);

describe('queue: settings in agentctl.yaml', () => {
  it.each([
    ['stalled_interval: 0', '4:21', 'queue.stalled_interval: must be more than 0'],
    ['lock_duration: "${AGENTCTL_TEST_UNSET:-0}"', '4:18', 'queue.lock_duration: must be more than 0'],
    ['url: http://127.0.0.1:6379', '4:8', 'queue.url `http://127.0.0.1:6379` is not a Redis URL'],
    [
      'url: redis://127.0.0.1:6379/abc',
      '4:8',
      'queue.url `redis://127.0.0.1:6379/abc` names a database that is not a number',
    ],
  ])(
    '%s: validate and every queue command refuse it at its line (exit 1)',
    async (setting, at, message) => {
      const dir = await fixtureProject('queue');
      await writeFile(join(dir, 'agentctl.yaml'), `kind: project\nname: queued\nqueue:\n  ${setting}\n`);
      const env = { AGENTCTL_QUEUE_URL: undefined, AGENTCTL_TEST_UNSET: undefined };
      const results = await Promise.all([
        agentctl(['validate'], { cwd: dir, env }),
        agentctl(['worker'], { cwd: dir, env, timeoutMs: 30_000 }),
        agentctl(['serve', '--port', '0'], { cwd: dir, env, timeoutMs: 30_000 }),
        agentctl(['run', 'clerk', 'x', '--queue'], { cwd: dir, env, timeoutMs: 30_000 }),
      ]);
      for (const result of results) {
        expect(result.code).toBe(1);
        expect(result.stdout + result.stderr).toContain(`agentctl.yaml:${at}: error: ${message}`);
        expect(result.stderr).not.toContain('    at ');
      }
    },
    60_000,
  );

  it('a queue that cannot be reached is named by the setting its URL came from', async () => {
    const dir = await fixtureProject('queue');
    const nobody = `redis://127.0.0.1:${await freePort()}`;
    await writeFile(join(dir, 'agentctl.yaml'), `kind: project\nname: queued\nqueue:\n  url: ${nobody}\n`);
    const [fromFile, fromEnv] = await Promise.all([
      agentctl(['worker'], { cwd: dir, env: { AGENTCTL_QUEUE_URL: undefined }, timeoutMs: 30_000 }),
      agentctl(['run', 'clerk', 'x', '--queue'], {
        cwd: dir,
        env: { AGENTCTL_QUEUE_URL: `${nobody}/0` },
        timeoutMs: 30_000,
      }),
    ]);
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain(`cannot reach the queue at ${nobody}`);
    expect(fromFile.stderr).toContain('(set by queue.url in agentctl.yaml)');
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain(`cannot reach the queue at ${nobody}/0`);
    expect(fromEnv.stderr).toContain('(set by AGENTCTL_QUEUE_URL)');
  }, 60_000);
});
