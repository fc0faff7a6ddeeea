import { randomUUID } from 'node:crypto';
import { type Message, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, sendParams, userMessage } from './support/a2a-client.js';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// The A2A SDK's own client against the real `agentctl serve` process.
let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(await fixtureProject('serve'));
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const clientFor = (agent: string): Promise<Client> => a2aClient(server.url, agent);
const send = sendParams;

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

function asTask(result: Message | Task): Task {
  expect('status' in result).toBe(true);
  return result as Task;
}

describe('agentctl serve: A2A', () => {
  it('serves a card per agent whose url is its JSON-RPC endpoint', async () => {
    const card = await (await fetch(`${server.url}/a2a/echo/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({
      name: 'echo',
      description: "Answers with the user's last message.",
      url: `${server.url}/a2a/echo`,
      capabilities: { streaming: true },
      skills: [{ id: 'echo' }],
    });
    expect((await fetch(`${server.url}/a2a/nobody/.well-known/agent-card.json`)).status).toBe(404);
  });

  it('message/send answers with a completed task, and tasks/get finds it', async () => {
    const client = await clientFor('echo');
    const task = asTask(await client.sendMessage(send(userMessage('hello over a2a'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe('hello over a2a');
    const output = task.artifacts.flatMap((a) =>
      a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')),
    );
    expect(output.join('')).toBe('hello over a2a');
    const fetched = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The context is the session: the same store the native API and `run` use.
    const session = await (await fetch(`${server.url}/sessions/${task.contextId}`)).json();
    expect(session.events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('message/stream streams the answer as artifact chunks, then the final state', async () => {
    const client = await clientFor('echo');
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(userMessage('one two three'))))
      events.push(event);
    expect(events[0].payload?.$case).toBe('task');
    const chunks = events.flatMap((e) =>
      e.payload?.$case === 'artifactUpdate'
        ? (e.payload.value.artifact?.parts ?? []).map((p) =>
            p.content?.$case === 'text' ? p.content.value : '',
          )
        : [],
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('one two three');
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('an approval is input-required, answered by the next message of the task', async () => {
    const client = await clientFor('cashier');
    const paused = asTask(await client.sendMessage(send(userMessage('refund A-1'))));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(paused.status?.message)).toContain('refund(');
    const done = asTask(
      await client.sendMessage(send(userMessage('yes', { contextId: paused.contextId, taskId: paused.id }))),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const session = await (await fetch(`${server.url}/sessions/${paused.contextId}`)).json();
    const result = session.events.find((e: { type: string }) => e.type === 'tool_result');
    expect(result).toMatchObject({ name: 'refund', isError: false });

    const second = asTask(await client.sendMessage(send(userMessage('refund B-2'))));
    const denied = asTask(
      await client.sendMessage(
        send(
          userMessage('no, that order was already refunded', {
            contextId: second.contextId,
            taskId: second.id,
          }),
        ),
      ),
    );
    expect(denied.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const log = await (await fetch(`${server.url}/sessions/${second.contextId}`)).json();
    const refused = log.events.find((e: { type: string }) => e.type === 'tool_result');
    expect(refused.content).toContain('already refunded');
  });

  it('tasks/cancel stops a running task and leaves its session valid', async () => {
    const client = await clientFor('sleepy');
    const stream = client.sendMessageStream(send(userMessage('nap please')));
    const first = await stream.next();
    const payload = (first.value as StreamResponse).payload;
    expect(payload?.$case).toBe('task');
    const task = payload?.value as Task;
    const id = task.id;
    await client.cancelTask({ tenant: '', id, metadata: undefined });
    let state: TaskState | undefined;
    let said = '';
    for await (const event of stream)
      if (event.payload?.$case === 'statusUpdate') {
        state = event.payload.value.status?.state;
        said = textOf(event.payload.value.status?.message);
      }
    expect(state).toBe(TaskState.TASK_STATE_CANCELED);
    // Why it ended, not the platform's "This operation was aborted".
    expect(said).toBe(`task ${id} was canceled by its A2A client (tasks/cancel)`);
    const fetched = await client.getTask({ tenant: '', id, historyLength: undefined });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const session = await (await fetch(`${server.url}/sessions/${task.contextId}`)).json();
    expect(session.paused).toBe(false);
    expect(session.events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
    expect(session.events.find((e: { type: string }) => e.type === 'error')).toMatchObject({
      code: 'ABORTED',
      message: `task ${id} was canceled by its A2A client (tasks/cancel)`,
    });
  });

  it('speaks the 0.3 method names to a client that sends them', async () => {
    const response = await fetch(`${server.url}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'old client' }],
          },
        },
      }),
    });
    const body = await response.json();
    expect(body.id).toBe(7);
    expect(body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });
});
