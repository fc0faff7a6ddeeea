import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, sendParams, userMessage } from './support/a2a-client.js';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

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
---
kind: agent
name: asker
description: Asks the user a question before answering.
model: offline/auto
instruction: Ask the user for their size.
tools:
  - builtin: user_input
---
kind: agent
name: remember
description: Keeps its last answer in the user's state.
model: offline/echo
output_key: user:last
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

  it('a path cannot write access-log lines of its own: one line per request, the path as sent', async () => {
    const forged = '2026-01-01T00:00:00.000Z POST /agents/echo/runs 200 1ms';
    const response = await fetch(`${server.url}/sessions/x%0a${encodeURIComponent(forged)}%0d%0a`);
    expect(response.status).toBe(400);
    await waitFor(() => server.stderr().includes('/sessions/x%0a'), 'the access-log line');
    const lines = server.stderr().split('\n');
    expect(lines.some((line) => line.startsWith('2026-01-01T00:00:00.000Z'))).toBe(false);
    expect(lines.find((line) => line.includes('/sessions/x%0a'))).toMatch(
      / GET \/sessions\/x%0a\S+ 400 \d+ms$/,
    );
  });

  it('a client that hangs up mid-body is logged as 499, not as an internal error', async () => {
    const { port } = new URL(server.url);
    const before = server.stderr().length;
    for (const framing of [
      'Content-Length: 1000\r\n\r\n{"input": "cut',
      'Transfer-Encoding: chunked\r\n\r\n5\r\n{"inp\r\n',
    ]) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /agents/echo/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}`,
          );
          setTimeout(() => socket.destroy(), 200);
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
    }
    await waitFor(
      () =>
        (
          server
            .stderr()
            .slice(before)
            .match(/POST \/agents\/echo\/runs 499 /g) ?? []
        ).length === 2,
      'two 499 lines in the access log',
    );
    expect(server.stderr().slice(before)).not.toContain('internal error');
  });

  it('a run that fails inside the server is a 500 saying only "internal error" and a ref, and serve logs what it was with that ref', async () => {
    const id = `corrupt-${randomUUID()}`;
    await mkdir(join(dir, '.agentctl', 'sessions'), { recursive: true });
    await writeFile(join(dir, '.agentctl', 'sessions', `${id}.jsonl`), '{"version":1,"id":\n{not json\n');
    const run = await post('/agents/echo/runs', { input: 'hi', sessionId: id, stream: false });
    const shown = await errorOf(run);
    expect(shown).toMatchObject({ status: 500, code: 'internal' });
    const ref = /^internal error \(ref ([0-9a-f]{12})\)$/.exec(shown.message)?.[1];
    expect(ref, shown.message).toBeDefined();
    await waitFor(
      () => server.stderr().includes(`(ref ${ref}): `) && server.stderr().includes(`${id}.jsonl is corrupt`),
      'the internal error on stderr with its ref',
    );
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

  it('a chat message part the agent cannot read is a 400 naming it, not dropped unseen', async () => {
    const chat = (content: unknown) =>
      post('/v1/chat/completions', { model: 'echo', messages: [{ role: 'user', content }] });
    const image = await chat([
      { type: 'text', text: 'what is in this picture?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    expect(await errorOf(image)).toEqual({
      status: 400,
      code: 'bad_request',
      message: 'messages[0].content[1] is a part of type image_url: only text parts are read',
      // As OpenAI words its errors, for its SDKs.
      type: 'invalid_request_error',
      param: 'messages[0].content[1]',
    });
    expect((await errorOf(await chat([{ type: 'text', text: 5 }]))).message).toBe(
      'messages[0].content[0].text must be a string',
    );
    expect((await errorOf(await chat([null]))).message).toBe(
      'messages[0].content[0] is not a part: only text parts are read',
    );
    const text = await chat([
      { type: 'text', text: 'two ' },
      { type: 'text', text: 'parts' },
    ]);
    expect((await text.json()).choices[0].message.content).toBe('two parts');
  });

  it("a user id of any length keeps that user's state, like a short one", async () => {
    const userId = `${'u'.repeat(300)}@example.com`;
    const run = async (agent: string, input: string, user: string) => {
      const response = await post(`/agents/${agent}/runs`, { input, userId: user, stream: false });
      const body = (await response.json()) as { status: string; state: Record<string, unknown> };
      expect(body.status).toBe('complete');
      return body;
    };
    await run('remember', 'kept for this user', userId);
    await run('remember', 'kept for another', `${userId}.other`);
    // A new session of that user, by an agent that writes nothing, starts with what was kept.
    expect((await run('echo', 'hi', userId)).state['user:last']).toBe('kept for this user');
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
    // The call as it was shown: a name alone, or arguments that are not the pending call's.
    const half = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [{ callId, decision: 'approve', name: paused.pending[0].call.name }],
    });
    expect((await errorOf(half)).message).toBe(
      'decisions[0]: name (a string) and arguments (an object) go together, as the call was shown',
    );
    const other = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [
        { callId, decision: 'approve', name: paused.pending[0].call.name, arguments: { order: 'B-2' } },
      ],
    });
    expect(await errorOf(other)).toMatchObject({ status: 409, code: 'call_changed' });
    const session = await (await fetch(`${server.url}/sessions/${paused.sessionId}`)).json();
    expect(session).toMatchObject({ paused: true, pending: [{ call: { id: callId } }] });
    expect(session.events.some((e: { type: string }) => e.type === 'tool_result')).toBe(false);
    // The session still takes one good decision, with the call as it is.
    const { name, arguments: args } = paused.pending[0].call;
    const approved = await (
      await post(`/sessions/${paused.sessionId}/decisions`, {
        decisions: [{ callId, decision: 'approve', name, arguments: args }],
        stream: false,
      })
    ).json();
    expect(approved.status).toBe('complete');
  });

  it("an input request takes an answer, not an approval; the answer is the call's result", async () => {
    const paused = await (await post('/agents/asker/runs', { input: 'hello', stream: false })).json();
    expect(paused).toMatchObject({ status: 'paused', pending: [{ kind: 'input' }] });
    const callId = paused.pending[0].call.id as string;
    const approved = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [{ callId, decision: 'approve' }],
    });
    expect(await errorOf(approved)).toMatchObject({ status: 400, code: 'bad_request' });
    const noAnswer = await post(`/sessions/${paused.sessionId}/decisions`, {
      decisions: [{ callId, decision: 'answer' }],
    });
    expect((await errorOf(noAnswer)).message).toBe('decisions[0].answer must be a string');
    const answered = await (
      await post(`/sessions/${paused.sessionId}/decisions`, {
        decisions: [{ callId, decision: 'answer', answer: 'XL' }],
        stream: false,
      })
    ).json();
    expect(answered.status).toBe('complete');
    const session = await (await fetch(`${server.url}/sessions/${paused.sessionId}`)).json();
    expect(session.events.find((e: { type: string }) => e.type === 'tool_result')).toMatchObject({
      name: 'user_input',
      content: 'XL',
      isError: false,
    });
  });

  it('decisions resume the agent that paused a session another agent started, so the approved call runs', async () => {
    const sessionId = `shared-${randomUUID()}`;
    expect((await post('/agents/echo/runs', { input: 'hi', sessionId, stream: false })).status).toBe(200);
    const paused = await (
      await post('/agents/cashier/runs', { input: 'refund A-1', sessionId, stream: false })
    ).json();
    expect(paused.status).toBe('paused');
    const approved = await (
      await post(`/sessions/${sessionId}/decisions`, {
        decisions: [{ callId: paused.pending[0].call.id, decision: 'approve' }],
        stream: false,
      })
    ).json();
    expect(approved.status).toBe('complete');
    const session = await (await fetch(`${server.url}/sessions/${sessionId}`)).json();
    const results = session.events.filter((e: { type: string }) => e.type === 'tool_result');
    expect(results).toMatchObject([{ name: 'refund', isError: false }]);
    expect(results[0].content).toContain('refunded');
    expect(session.paused).toBe(false);
  });
});

const clientFor = (agent: string): Promise<Client> => a2aClient(server.url, agent);
const send = sendParams;

// What a call that never answers resolves to here, so a hang fails the test with a reason.
const HUNG = 'no answer within 20 s';
const bounded = <T>(promise: Promise<T>): Promise<T | typeof HUNG> =>
  Promise.race([promise, new Promise<typeof HUNG>((r) => setTimeout(() => r(HUNG), 20_000).unref())]);

describe('agentctl serve: hostile A2A clients', () => {
  it('a body that is no JSON-RPC request is answered with a JSON-RPC error, as the SDK serves them', async () => {
    const rpc = async (body: string) => {
      const response = await fetch(`${server.url}/a2a/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number } };
    };
    expect(await rpc('{"jsonrpc": "2.0", "id": 1, "method": ')).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700 },
    });
    for (const body of [
      '[{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}]',
      '"hi"',
    ])
      expect(await rpc(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('a request over the body limit is a JSON-RPC error the SDK client raises, streamed or not', async () => {
    const client = await clientFor('echo');
    const big = () => send(userMessage('x'.repeat(1_100_000)));
    const sent = await client.sendMessage(big()).catch((error: unknown) => error);
    const streamed = await (async () => {
      for await (const _ of client.sendMessageStream(big())) {
        // nothing is streamed: the request is refused
      }
    })().catch((error: unknown) => error);
    for (const error of [sent, streamed]) {
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('Invalid Request: the body is larger than 1048576 bytes');
      expect((error as Error).message).not.toContain('HTTP error');
    }
    // The unread body closed its connection, and said so: the next request gets a fresh one.
    const after = (await client.sendMessage(send(userMessage('small after big')))) as Task;
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('tasks/cancel of a task waiting for an approval cancels it at once; its session stays paused', async () => {
    const client = await clientFor('cashier');
    const paused = (await client.sendMessage(send(userMessage('refund A-1')))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await bounded(client.cancelTask({ tenant: '', id: paused.id, metadata: undefined }));
    expect(cancelled).not.toBe(HUNG);
    expect((cancelled as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const fetched = await client.getTask({ tenant: '', id: paused.id, historyLength: undefined });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // A canceled task takes no more messages; its session is still valid and paused.
    await expect(
      client.sendMessage(send(userMessage('yes', { contextId: paused.contextId, taskId: paused.id }))),
    ).rejects.toThrow(/terminal state/);
    const session = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    expect(session.paused).toBe(true);
    expect(session.events.some((e: { type: string }) => e.type === 'tool_result')).toBe(false);
  });

  it('a new task in a context waiting in another task is refused, naming that task; the answer goes there', async () => {
    const client = await clientFor('cashier');
    const paused = (await client.sendMessage(send(userMessage('refund A-1')))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const stray = (await client.sendMessage(
      send(userMessage('no', { contextId: paused.contextId })),
    )) as Task;
    expect(stray.id).not.toBe(paused.id);
    expect(stray.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = (stray.status?.message?.parts ?? []).map((p) =>
      p.content?.$case === 'text' ? p.content.value : '',
    );
    expect(said.join('')).toContain(`waits for an answer in task ${paused.id}`);
    const session = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    expect(session.paused).toBe(true);
    const done = (await client.sendMessage(
      send(userMessage('yes', { contextId: paused.contextId, taskId: paused.id })),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const log = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    expect(log.events.filter((e: { type: string }) => e.type === 'tool_result')).toMatchObject([
      { name: 'refund', isError: false },
    ]);
  });

  it("an answer sent to another agent's endpoint is refused, not dropped: the session still waits", async () => {
    const cashier = await clientFor('cashier');
    const paused = (await cashier.sendMessage(send(userMessage('refund A-1')))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const echo = await clientFor('echo');
    const wrong = (await echo.sendMessage(send(userMessage('yes', { contextId: paused.contextId })))) as Task;
    expect(wrong.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = wrong.status?.message?.parts.map((p) =>
      p.content?.$case === 'text' ? p.content.value : '',
    );
    expect(said?.join('')).toContain('resume it with cashier');
    const session = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    expect(session.paused).toBe(true);
    const done = (await cashier.sendMessage(
      send(userMessage('yes', { contextId: paused.contextId, taskId: paused.id })),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a file part the agent cannot read is refused, not dropped: a new task fails, a waiting one asks again', async () => {
    const withFile = (text: string, ids: { contextId?: string; taskId?: string } = {}) => {
      const message = userMessage(text, ids);
      message.parts.push({
        content: { $case: 'url', value: 'https://example.com/receipt.png' },
        metadata: undefined,
        filename: 'receipt.png',
        mediaType: 'image/png',
      });
      return message;
    };
    const echo = await clientFor('echo');
    const failed = (await echo.sendMessage(send(withFile('what does this say?')))) as Task;
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = (task: Task) =>
      (task.status?.message?.parts ?? [])
        .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
        .join('');
    expect(said(failed)).toContain('part 1 of the message is url: only text parts are read');
    expect((await fetch(`${server.url}/sessions/${failed.contextId}`)).status).toBe(404);

    const cashier = await clientFor('cashier');
    const paused = (await cashier.sendMessage(send(userMessage('refund A-1')))) as Task;
    const ids = { contextId: paused.contextId, taskId: paused.id };
    const again = (await cashier.sendMessage(send(withFile('yes', ids)))) as Task;
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(said(again)).toContain('only text parts are read');
    expect((await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json()).paused).toBe(true);
    const done = (await cashier.sendMessage(send(userMessage('yes', ids)))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a message with no text is refused, not run: a new task fails, a waiting one asks again', async () => {
    const said = (task: Task) =>
      (task.status?.message?.parts ?? [])
        .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
        .join('');
    const echo = await clientFor('echo');
    const empty = userMessage('');
    empty.parts = [];
    const failed = (await echo.sendMessage(send(empty))) as Task;
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(said(failed)).toContain('the message has no text');
    expect((await fetch(`${server.url}/sessions/${failed.contextId}`)).status).toBe(404);

    // A blank answer to an approval would refuse the refund with no reason: it is asked again.
    const cashier = await clientFor('cashier');
    const paused = (await cashier.sendMessage(send(userMessage('refund A-1')))) as Task;
    const ids = { contextId: paused.contextId, taskId: paused.id };
    const again = (await cashier.sendMessage(send(userMessage('   ', ids)))) as Task;
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(said(again)).toContain('the message has no text');
    const session = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    expect(session.paused).toBe(true);
    expect(session.events.some((e: { type: string }) => e.type === 'tool_result')).toBe(false);
    const done = (await cashier.sendMessage(send(userMessage('yes', ids)))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a second answer to a task still working is refused; the task ends as its run did', async () => {
    const client = await clientFor('careful');
    const paused = (await client.sendMessage(send(userMessage('refund A-1')))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const ids = { contextId: paused.contextId, taskId: paused.id };
    const answers = await Promise.allSettled([
      client.sendMessage(send(userMessage('yes', ids))),
      client.sendMessage(send(userMessage('yes', ids))),
    ]);
    const done = answers.filter((a) => a.status === 'fulfilled');
    const refused = answers.filter((a) => a.status === 'rejected');
    expect(done).toHaveLength(1);
    expect(((done[0] as PromiseFulfilledResult<Task>).value as Task).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    expect(refused).toHaveLength(1);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/still working|terminal state/);
    const task = await client.getTask({ tenant: '', id: paused.id, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const session = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    const results = session.events.filter((e: { type: string }) => e.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0].content).toContain('refunded');
  });
});
