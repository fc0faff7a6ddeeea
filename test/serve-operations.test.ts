import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { readSse, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

// Operating the real `agentctl serve` process: shutdown, caps, timeouts, CORS, logs, reload.
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const run = (
  url: string,
  agent: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  fetch(`${url}/agents/${agent}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('agentctl serve: operations', () => {
  it('SIGTERM lets a run in flight finish within --grace, refuses new work, and exits 0', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--grace', '10s']);
    const inFlight = run(server.url, 'slow', { input: 'nap', stream: false });
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    const result = await (await inFlight).json();
    expect(result.status).toBe('complete');
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('1 run(s) finished, 0 cancelled');
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('a --timeout and --grace longer than a timer holds (24.8 days) are waited, not cut at once', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--timeout', '600h', '--grace', '600h']);
    const inFlight = run(server.url, 'slow', { input: 'nap', stream: false });
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    expect((await (await inFlight).json()).status).toBe('complete');
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('1 run(s) finished, 0 cancelled');
    expect(server.stderr()).not.toContain('TimeoutOverflowWarning');
  });

  it('after the grace period, runs are cancelled and their sessions stay valid', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--grace', '100ms']);
    const response = await run(server.url, 'sleepy', { input: 'nap', sessionId: 'cut-short' });
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    const events = (await readSse(response)).map((e) => JSON.parse(e.data));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'ABORTED' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('0 run(s) finished, 1 cancelled');
    // The session is whole: the next run continues it.
    const next = await agentctl(['run', 'echo', 'after the cut', '--session', 'cut-short', '--json'], {
      cwd: dir,
    });
    expect(next.code).toBe(0);
  });

  it('a second SIGTERM ends the grace at once: the runs left are cancelled, their sessions valid, and serve exits 0', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--grace', '10m']);
    const response = await run(server.url, 'sleepy', { input: 'nap', sessionId: 'cut-at-once' });
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    await waitFor(() => server.stderr().includes('shutting down: 1 run(s) in flight'), 'the drain starts');
    server.child.kill('SIGTERM');
    const events = (await readSse(response)).map((e) => JSON.parse(e.data));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'ABORTED' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('second signal: cancelling the 1 run(s) still in flight now');
    expect(server.stderr()).toContain('0 run(s) finished, 1 cancelled');
    const next = await agentctl(['run', 'echo', 'after the cut', '--session', 'cut-at-once', '--json'], {
      cwd: dir,
    });
    expect(next.code).toBe(0);
  });

  it('caps runs in flight with 429 and Retry-After, and bodies with 413', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--max-runs', '1', '--max-body', '200']);
    const first = run(server.url, 'slow', { input: 'nap', stream: false });
    await new Promise((r) => setTimeout(r, 300));
    const second = await run(server.url, 'echo', { input: 'me too' });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await second.json()).error.code).toBe('too_many_runs');
    expect((await (await first).json()).status).toBe('complete');
    expect((await run(server.url, 'echo', { input: 'now', stream: false })).status).toBe(200);
    const big = await run(server.url, 'echo', { input: 'x'.repeat(500) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('body_too_large');
  });

  it('stops a stateless chat completion when its client goes away, freeing its run slot', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--max-runs', '1']);
    const chat = (signal?: AbortSignal) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sleepy', stream: true, messages: [{ role: 'user', content: 'nap' }] }),
        signal,
      });
    const gone = new AbortController();
    const first = await chat(gone.signal);
    expect(first.status).toBe(200);
    gone.abort();
    // The nap takes ten seconds: without the cancel its slot stays taken (429) all that time.
    const until = Date.now() + 7000;
    let status = 0;
    while (Date.now() < until) {
      status = (await run(server.url, 'echo', { input: 'next', stream: false })).status;
      if (status !== 429) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('stops a stateless chat completion that is not streamed when its client goes away too', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--max-runs', '1']);
    const gone = new AbortController();
    const first = fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sleepy', messages: [{ role: 'user', content: 'nap' }] }),
      signal: gone.signal,
    });
    // Once the run holds the only slot, the client leaves before any answer.
    while ((await run(server.url, 'echo', { input: 'busy?', stream: false })).status !== 429)
      await new Promise((r) => setTimeout(r, 50));
    gone.abort();
    await expect(first).rejects.toThrow();
    // The nap takes ten seconds: without the cancel its slot stays taken (429) all that time.
    const until = Date.now() + 7000;
    let status = 0;
    while (Date.now() < until) {
      status = (await run(server.url, 'echo', { input: 'next', stream: false })).status;
      if (status !== 429) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('stops a stateless response of the Responses API when its client goes away too', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--max-runs', '1']);
    const gone = new AbortController();
    const first = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sleepy', stream: true, input: 'nap' }),
      signal: gone.signal,
    });
    expect(first.status).toBe(200);
    gone.abort();
    // The nap takes ten seconds: without the cancel its slot stays taken (429) all that time.
    const until = Date.now() + 7000;
    let status = 0;
    while (Date.now() < until) {
      status = (await run(server.url, 'echo', { input: 'next', stream: false })).status;
      if (status !== 429) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('a session running on one server is busy (409) on another serving the same project', async () => {
    const dir = await fixtureProject('serve');
    const [one, two] = await Promise.all([startServe(dir), startServe(dir)]);
    const first = await run(one.url, 'sleepy', { input: 'nap', sessionId: 'shared-1' });
    expect(first.status).toBe(200);
    const second = await run(two.url, 'echo', { input: 'me too', sessionId: 'shared-1' });
    expect(second.status).toBe(409);
    expect((await second.json()).error.code).toBe('session_busy');
    await first.body?.cancel();
  });

  it('ends a run that takes longer than --timeout as TIMEOUT', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--timeout', '200ms']);
    const events = (await readSse(await run(server.url, 'slow', { input: 'nap' }))).map((e) =>
      JSON.parse(e.data),
    );
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'TIMEOUT' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
  });

  it('sends CORS headers only for --cors origins, and logs JSON lines with --log-format json', async () => {
    const dir = await fixtureProject('serve');
    const plain = await startServe(dir);
    const preflight = (url: string) =>
      fetch(`${url}/agents`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      });
    expect((await preflight(plain.url)).headers.get('access-control-allow-origin')).toBeNull();
    const open = await startServe(dir, ['--cors', 'https://app.example', '--log-format', 'json']);
    expect((await preflight(open.url)).headers.get('access-control-allow-origin')).toBe(
      'https://app.example',
    );
    await run(open.url, 'echo', { input: 'private words', stream: false });
    await open.stop();
    const lines = open
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(lines).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/agents/echo/runs', status: 200 }),
    );
    expect(open.stderr()).not.toContain('private words');
  });

  it('--watch reloads the project; a run in flight finishes on the generation it started on', async () => {
    const dir = await fixtureProject('serve');
    const server = await startServe(dir, ['--watch']);
    const inFlight = run(server.url, 'slow', { input: 'nap', stream: false });
    await new Promise((r) => setTimeout(r, 200));
    const file = join(dir, 'agents/serve.yaml');
    const yaml = await readFile(file, 'utf8');
    await writeFile(file, yaml.replace("Answers with the user's last message.", 'Echoes, after a reload.'));
    await waitFor(() => server.stderr().includes('generation 2 live'));
    expect((await (await inFlight).json()).status).toBe('complete');
    const { agents } = await (await fetch(`${server.url}/agents`)).json();
    expect(agents.find((a: { name: string }) => a.name === 'echo').description).toBe(
      'Echoes, after a reload.',
    );
    // A broken save keeps the last good generation serving.
    await writeFile(file, `${yaml}\n---\nkind: agent\nname: broken\nmodel: [\n`);
    await waitFor(() => server.stderr().includes('still serving generation 2'));
    expect((await run(server.url, 'echo', { input: 'still here', stream: false })).status).toBe(200);
  });
});
