import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// test/fixtures/projects/lifecycle: `writer` asks `checker` as an agent tool, whose refund waits
// for approval: the writer's session pauses with the checker's child session paused beneath it.
let server: ServeProcess;
beforeAll(async () => {
  server = await startServe(await fixtureProject('lifecycle'));
}, 60_000);
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
};

describe('serve: a child session paused inside its parent', () => {
  it('takes no decision, message or delete of its own (409 naming the parent); the parent resumes', async () => {
    const paused = await call('POST', '/agents/writer/runs', {
      input: 'refund A-17',
      sessionId: 'w',
      stream: false,
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused' });
    const sessions = (await call('GET', '/sessions')).body!.sessions as Array<{
      id: string;
      parentId?: string;
    }>;
    const child = sessions.find((s) => s.parentId === 'w')!;
    const refusal = {
      error: {
        code: 'session_inside_parent',
        message: `session ${child.id} is paused inside session w, which waits on it through an agent tool; POST /sessions/w/decisions`,
      },
    };
    const decided = await call('POST', `/sessions/${child.id}/decisions`, {
      decisions: [{ callId: 'call_checker_refund', decision: 'approve' }],
      stream: false,
    });
    expect(decided).toEqual({ status: 409, body: refusal });
    expect(
      await call('POST', '/agents/checker/runs', { input: 'hi', sessionId: child.id, stream: false }),
    ).toEqual({
      status: 409,
      body: refusal,
    });
    expect(await call('DELETE', `/sessions/${child.id}`)).toEqual({ status: 409, body: refusal });

    const resumed = await call('POST', '/sessions/w/decisions', {
      decisions: [{ callId: 'call_checker_refund', decision: 'approve' }],
      stream: false,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'complete', output: 'writer heard back from the checker' });
  }, 60_000);
});
