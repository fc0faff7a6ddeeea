import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, fixtureProject, removeTempDirs } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

// `serve --watch` takes its queue from agentctl.yaml like `serve` does; a save that changes
// `queue:` is reported and applied on restart, never swapped under runs in flight.

let redis: RedisProcess;
// No AGENTCTL_QUEUE_URL: the queue must come from the project file.
const env = { AGENTCTL_QUEUE_URL: undefined, LOCK: 'soon' };

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  await stopServers();
  await redis?.stop();
  await removeTempDirs();
});

async function enqueue(url: string): Promise<Response> {
  return fetch(`${url}/agents/clerk/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'stamp it', async: true }),
  });
}

describe('agentctl serve --watch and queue:', () => {
  it('uses the queue of agentctl.yaml, and says a changed queue: takes effect on restart', async () => {
    const dir = await fixtureProject('queue');
    const file = join(dir, 'agentctl.yaml');
    await writeFile(file, `kind: project\nname: watched\nqueue:\n  url: ${redis.url}\n  attempts: 2\n`);
    const server = await startServe(dir, ['--watch'], env);
    const queued = await enqueue(server.url);
    expect(queued.status).toBe(202);
    const health = (await (await fetch(`${server.url}/health`)).json()) as { queue?: object };
    expect(health.queue).toBeDefined();
    expect(server.stderr()).not.toContain('queue:');

    await writeFile(file, (await readFile(file, 'utf8')).replace('attempts: 2', 'attempts: 5'));
    await waitFor(() => server.stderr().includes('generation 2 live'), 'generation 2');
    await waitFor(
      () => server.stderr().includes('queue settings take effect when serve restarts'),
      'queue note',
    );
    // The connection opened at start keeps serving.
    expect((await enqueue(server.url)).status).toBe(202);

    // A save that touches no queue setting says nothing more about the queue.
    const notes = () => server.stderr().split('take effect when serve restarts').length - 1;
    await writeFile(join(dir, 'agents/note.yaml'), 'kind: agent\nname: note\nmodel: offline/auto\n');
    await waitFor(() => server.stderr().includes('generation 3 live'), 'generation 3');
    expect(notes()).toBe(1);

    await writeFile(file, (await readFile(file, 'utf8')).replace('attempts: 5', 'attempts: 2'));
    await waitFor(() => server.stderr().includes('back to the settings in use'), 'back note');
    expect(notes()).toBe(1);

    // A queue: that does not resolve is an error of the save, at its line; the queue in use goes on.
    await writeFile(file, (await readFile(file, 'utf8')).replace('attempts: 2', `lock_duration: \${LOCK}`));
    await waitFor(() => server.stderr().includes('[reload] failed'), 'failed reload');
    expect(server.stderr()).toContain('agentctl.yaml:5:18: error: queue.lock_duration');
    expect((await enqueue(server.url)).status).toBe(202);
  });

  it('says nothing of a queue when there is none, and names a changed name: as such', async () => {
    const dir = await fixtureProject('queue');
    const file = join(dir, 'agentctl.yaml');
    await writeFile(file, 'kind: project\nname: watched\n');
    const server = await startServe(dir, ['--watch'], env);
    await writeFile(file, 'kind: project\nname: renamed\n');
    await waitFor(() => server.stderr().includes('generation 2 live'), 'generation 2');
    // No queue before or after: a renamed project, or no agentctl.yaml at all, is nothing to restart for.
    await writeFile(join(dir, 'agents/note.yaml'), 'kind: agent\nname: note\nmodel: offline/auto\n');
    await waitFor(() => server.stderr().includes('generation 3 live'), 'generation 3');
    expect(server.stderr()).not.toMatch(/\[reload\] agentctl\.yaml/);
    await server.stop();

    await writeFile(file, `kind: project\nname: watched\nqueue:\n  url: ${redis.url}\n`);
    const queued = await startServe(dir, ['--watch'], env);
    await writeFile(file, `kind: project\nname: renamed\nqueue:\n  url: ${redis.url}\n`);
    await waitFor(() => queued.stderr().includes('generation 2 live'), 'generation 2');
    await waitFor(() => queued.stderr().includes('agentctl.yaml name: changed'), 'name note');
    expect(queued.stderr()).not.toContain('queue settings take effect');
  });

  it('serve refuses a queue: whose settings do not resolve (exit 1); serve --watch says so and serves once a save fixes it', async () => {
    const dir = await fixtureProject('queue');
    const file = join(dir, 'agentctl.yaml');
    await writeFile(
      file,
      `kind: project\nname: watched\nqueue:\n  url: ${redis.url}\n  lock_duration: \${LOCK}\n`,
    );
    const result = await agentctl(['serve', '--port', '0'], { cwd: dir, env });
    expect(result.stderr).toContain('agentctl.yaml:5:18: error: queue.lock_duration');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.code).toBe(1);
    // Watching, a project broken at start is waited on, as dev does, until a save fixes it.
    const child = spawn(process.execPath, [BIN, 'serve', '--watch', '--port', '0'], {
      cwd: dir,
      env: cliEnv(env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    try {
      await waitFor(
        () => stderr.includes('serving starts as soon as the project is valid'),
        'the wait is said',
      );
      expect(stderr).toContain('agentctl.yaml:5:18: error: queue.lock_duration');
      expect(stderr).not.toMatch(/^\s+at /m);
      await writeFile(
        file,
        `kind: project\nname: watched\nqueue:\n  url: ${redis.url}\n  lock_duration: 30s\n`,
      );
      await waitFor(() => /listening on http/.test(stdout), 'serving once the save fixed it');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
