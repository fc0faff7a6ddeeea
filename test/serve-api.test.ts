import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { readSse, type ServeProcess, startServe, stopServers } from './support/serve.js';

// The real `agentctl serve` process driven with fetch: the native API, auth and its errors.
let dir: string;
let server: ServeProcess;

beforeAll(async () => {
  dir = await fixtureProject('serve');
  server = await startServe(dir);
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('agentctl serve: native API', () => {
  it('prints where it listens, on loopback, and answers /health and /agents', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
    const { agents } = (await (await fetch(`${server.url}/agents`)).json()) as { agents: { name: string }[] };
    expect(agents.map((a) => a.name)).toEqual(['cashier', 'echo', 'sleepy', 'slow']);
  });

  it('streams the same events as run --json over SSE, and stores the session where run finds it', async () => {
    const response = await post('/agents/echo/runs', { input: 'hello over http' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const sessionId = response.headers.get('x-agentctl-session') as string;
    const events = (await readSse(response)).map((e) => ({ name: e.event, ...JSON.parse(e.data) }));
    for (const e of events) expect(e.name).toBe(e.type);
    const cli = await agentctl(['run', 'echo', 'hello over http', '--json'], { cwd: dir });
    const cliTypes = cli.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type);
    expect(events.map((e) => e.type)).toEqual(cliTypes);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'hello over http' });
    // The session is in the project's store: `run --session` continues it.
    const again = await agentctl(['run', 'echo', 'second turn', '--session', sessionId, '--json'], {
      cwd: dir,
    });
    expect(again.code).toBe(0);
    const shown = await (await fetch(`${server.url}/sessions/${sessionId}`)).json();
    expect(shown.events.filter((e: { type: string }) => e.type === 'run_end')).toHaveLength(2);
  });

  it('answers one JSON result with stream: false, and continues a session by id', async () => {
    const first = await (await post('/agents/echo/runs', { input: 'one', stream: false })).json();
    expect(first).toMatchObject({ status: 'complete', output: 'one' });
    const second = await (
      await post('/agents/echo/runs', { input: 'two', sessionId: first.sessionId, stream: false })
    ).json();
    expect(second).toMatchObject({ status: 'complete', output: 'two', sessionId: first.sessionId });
    const listed = await (await fetch(`${server.url}/sessions`)).json();
    expect(listed.sessions.map((s: { id: string }) => s.id)).toContain(first.sessionId);
    const deleted = await fetch(`${server.url}/sessions/${first.sessionId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${server.url}/sessions/${first.sessionId}`)).status).toBe(404);
  });

  it('pauses on an approval and resumes with a decision: approve runs the tool, deny tells the model why', async () => {
    const paused = await (await post('/agents/cashier/runs', { input: 'refund A-1', stream: false })).json();
    expect(paused.status).toBe('paused');
    const callId = paused.pending[0].call.id as string;
    const session = await (await fetch(`${server.url}/sessions/${paused.sessionId}`)).json();
    expect(session).toMatchObject({ paused: true, pending: [{ call: { id: callId, name: 'refund' } }] });
    // A paused session takes decisions, not messages.
    const refused = await post('/agents/cashier/runs', { input: 'again', sessionId: paused.sessionId });
    expect(refused.status).toBe(409);
    // Nor an empty list of them, which would leave its calls undecided: refused, naming them.
    const none = await post(`/sessions/${paused.sessionId}/decisions`, { decisions: [] });
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({
      error: {
        code: 'bad_request',
        message: `\`decisions\` is empty: session ${paused.sessionId} is paused waiting for a decision on ${callId} (refund); approve, deny or answer at least one`,
      },
    });
    expect(await (await fetch(`${server.url}/sessions/${paused.sessionId}`)).json()).toEqual(session);
    const resumed = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [{ callId, decision: 'approve' }],
    });
    const events = (await readSse(resumed)).map((e) => JSON.parse(e.data));
    const result = events.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({ name: 'refund', isError: false });
    expect(result.content).toContain('refunded');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });

    const second = await (await post('/agents/cashier/runs', { input: 'refund B-2', stream: false })).json();
    const denied = await (
      await post(`/sessions/${second.sessionId}/decisions`, {
        decisions: [{ callId: second.pending[0].call.id, decision: 'deny', reason: 'not this one' }],
        stream: false,
      })
    ).json();
    expect(denied.status).toBe('complete');
    const log = await (await fetch(`${server.url}/sessions/${second.sessionId}`)).json();
    const deniedResult = log.events.find((e: { type: string }) => e.type === 'tool_result');
    expect(deniedResult.content).toContain('not this one');
    // Nothing is pending any more.
    const again = await post(`/sessions/${second.sessionId}/decisions`, {
      decisions: [{ callId: second.pending[0].call.id, decision: 'approve' }],
    });
    expect(again.status).toBe(409);
  });

  it('names the problem: unknown agent 404, bad JSON 400, bad decision 400, busy session 409', async () => {
    const unknown = await post('/agents/nobody/runs', { input: 'hi' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: 'unknown_agent', message: 'no agent named "nobody"' },
    });
    const bad = await post('/agents/echo/runs', '{"input": ');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('bad_json');
    const noInput = await post('/agents/echo/runs', { prompt: 'hi' });
    expect((await noInput.json()).error.message).toContain('`input`');
    expect(
      (await post('/sessions/x/decisions', { decisions: [{ callId: 'a', decision: 'maybe' }] })).status,
    ).toBe(400);
    expect((await fetch(`${server.url}/sessions/no-such-session`)).status).toBe(404);

    const first = post('/agents/slow/runs', { input: 'nap', sessionId: 'busy-1', stream: false });
    await new Promise((r) => setTimeout(r, 300));
    const second = await post('/agents/slow/runs', { input: 'nap', sessionId: 'busy-1' });
    expect(second.status).toBe(409);
    expect((await second.json()).error.code).toBe('session_busy');
    expect((await (await first).json()).status).toBe('complete');
    for (const line of server.stderr().split('\n')) expect(line).not.toMatch(/\n\s+at /);
  });

  it('serves its OpenAPI document and logs one line per request without prompts', async () => {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/agents/{agent}/runs', '/sessions/{id}/decisions', '/v1/chat/completions']),
    );
    await post('/agents/echo/runs', { input: 'a secret prompt', stream: false });
    const log = server.stderr();
    expect(log).toMatch(/POST \/agents\/echo\/runs 200 \d+ms/);
    expect(log).not.toContain('a secret prompt');
  });
});

describe('agentctl serve: auth', () => {
  it('with a token, every route but GET /health needs it', async () => {
    const guarded = await startServe(dir, [], { AGENTCTL_SERVE_TOKEN: 'one,two' });
    expect((await fetch(`${guarded.url}/health`)).status).toBe(200);
    const denied = await fetch(`${guarded.url}/agents`);
    expect(denied.status).toBe(401);
    expect((await denied.json()).error.code).toBe('unauthorized');
    expect(
      (await fetch(`${guarded.url}/agents`, { headers: { authorization: 'Bearer three' } })).status,
    ).toBe(401);
    expect((await fetch(`${guarded.url}/agents`, { headers: { authorization: 'Bearer two' } })).status).toBe(
      200,
    );
    expect((await fetch(`${guarded.url}/v1/models`)).status).toBe(401);
    expect(guarded.stderr()).not.toContain('two');
    expect(await guarded.stop()).toBe(0);
  });

  it('--token-env names the variable; a token in it is required', async () => {
    const guarded = await startServe(dir, ['--token-env', 'MY_TOKENS'], { MY_TOKENS: 'abc' });
    expect((await fetch(`${guarded.url}/agents`, { headers: { authorization: 'Bearer abc' } })).status).toBe(
      200,
    );
    await guarded.stop();
    const unset = await agentctl(['serve', '--port', '0', '--token-env', 'NOT_SET_ANYWHERE'], { cwd: dir });
    expect(unset.code).toBe(2);
  });

  it('refuses a non-loopback host without a token (exit 2)', async () => {
    const result = await agentctl(['serve', '--host', '0.0.0.0', '--port', '0'], {
      cwd: dir,
      env: { AGENTCTL_SERVE_TOKEN: undefined },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refusing to serve on 0.0.0.0 without a token');
    expect(result.stdout).toBe('');
  });
});
