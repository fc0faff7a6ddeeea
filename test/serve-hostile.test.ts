import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// A hostile client against the real `agentctl serve`: what a user gets wrong must be a 4xx naming
// the field, never a 500, and a protocol's outcome must be the run's.
let dir: string;
let server: ServeProcess;

// An approval whose tool takes a second, so a second answer can arrive while the first one runs.
const CAREFUL = `kind: agent
name: careful
description: Refunds slowly, each refund approved first.
model: offline/auto
instruction: Refund the order the user names.
tools: [slow_refund]
---
kind: tool
name: slow_refund
description: Refunds an order, slowly
parameters:
  type: object
  properties:
    order: { type: string, description: The order id }
  required: [order]
command:
  argv: [sh, -c, "sleep 1; echo refunded"]
needs_approval: true
`;

beforeAll(async () => {
  dir = await fixtureProject('serve');
  await writeFile(join(dir, 'agents', 'careful.yaml'), CAREFUL);
  server = await startServe(dir);
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('agentctl serve: hostile requests on the native API', () => {
  it('a malformed session id in the path is a 400 saying what a session id is, on every session route', async () => {
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%E6%97%A5%E6%9C%AC', 'a'.repeat(300)]) {
      const shown = await errorOf(await fetch(`${server.url}/sessions/${id}`));
      expect(shown).toMatchObject({ status: 400, code: 'bad_request' });
      expect(shown.message).toContain('invalid session id');
      const deleted = await fetch(`${server.url}/sessions/${id}`, { method: 'DELETE' });
      expect(deleted.status).toBe(400);
      const decided = await post(`/sessions/${id}/decisions`, {
        decisions: [{ callId: 'c', decision: 'approve' }],
      });
      expect(await errorOf(decided)).toMatchObject({ status: 400, code: 'bad_request' });
    }
    expect(server.stderr()).not.toContain('internal error');
  });

  it('stream and async must be booleans: a 400 naming the field, no run started', async () => {
    const before = (await (await fetch(`${server.url}/sessions`)).json()).sessions.length;
    const streamed = await post('/agents/echo/runs', { input: 'hi', stream: 'no' });
    expect(await errorOf(streamed)).toEqual({
      status: 400,
      code: 'bad_request',
      message: '`stream` must be true or false',
    });
    const queued = await post('/agents/echo/runs', { input: 'hi', async: 'yes', stream: false });
    expect((await errorOf(queued)).message).toBe('`async` must be true or false');
    const chat = await post('/v1/chat/completions', {
      model: 'echo',
      messages: [{ role: 'user', content: 'hi' }],
      stream: 'true',
    });
    expect(await errorOf(chat)).toMatchObject({ status: 400, message: '`stream` must be true or false' });
    expect((await (await fetch(`${server.url}/sessions`)).json()).sessions).toHaveLength(before);
  });

  it('decisions: one call decided twice, or a reason that is not text, is a 400 and the run stays paused', async () => {
    const paused = await (await post('/agents/cashier/runs', { input: 'refund A-1', stream: false })).json();
    expect(paused.status).toBe('paused');
    const callId = paused.pending[0].call.id as string;
    const twice = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [
        { callId, decision: 'approve' },
        { callId, decision: 'deny', reason: 'no' },
      ],
      stream: false,
    });
    expect(await errorOf(twice)).toEqual({
      status: 400,
      code: 'bad_request',
      message: `decisions[1].callId: call ${callId} is already decided by decisions[0]`,
    });
    const reason = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [{ callId, decision: 'deny', reason: { why: 'no' } }],
    });
    expect((await errorOf(reason)).message).toBe('decisions[0].reason must be a string');
    const session = await (await fetch(`${server.url}/sessions/${paused.sessionId}`)).json();
    expect(session).toMatchObject({ paused: true, pending: [{ call: { id: callId } }] });
    expect(session.events.some((e: { type: string }) => e.type === 'tool_result')).toBe(false);
    // The session still takes one good decision.
    const approved = await (
      await post(`/sessions/${paused.sessionId}/decisions`, {
        decisions: [{ callId, decision: 'approve' }],
        stream: false,
      })
    ).json();
    expect(approved.status).toBe('complete');
  });
});
