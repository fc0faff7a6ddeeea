import { randomUUID } from 'node:crypto';
import { type Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { createAgent, InMemorySessionStore, offline } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { BoundedTaskStore } from '../src/a2a-task-store.js';
import { createApp } from '../src/create-app.js';

const anyone = new ServerCallContext({ user: new UnauthenticatedUser() });
const tenant = (name: string) => new ServerCallContext({ user: new UnauthenticatedUser(), tenant: name });

function task(id: string, state: TaskState, timestamp = new Date(0).toISOString()): Task {
  return {
    id,
    contextId: `ctx-${id}`,
    status: { state, message: undefined, timestamp },
    artifacts: [
      { artifactId: 'a', name: 'out', description: '', parts: [], metadata: undefined, extensions: [] },
    ],
    history: [],
    metadata: undefined,
  } as Task;
}

describe('BoundedTaskStore', () => {
  it('keeps an answer streamed one delta at a time as one text part, and copies stay apart', async () => {
    // What the SDK does for each artifact update: load the task, append the delta's part, save it.
    const store = new BoundedTaskStore();
    await store.save(task('long', TaskState.TASK_STATE_WORKING), anyone);
    for (let i = 0; i < 2000; i++) {
      const loaded = (await store.load('long', anyone))!;
      const part = {
        content: { $case: 'text' as const, value: `w${i} ` },
        metadata: undefined,
        filename: '',
        mediaType: 'text/plain',
      };
      loaded.artifacts[0].parts = [...loaded.artifacts[0].parts, part];
      await store.save(loaded, anyone);
    }
    const stored = (await store.load('long', anyone))!;
    expect(stored.artifacts[0].parts).toHaveLength(1);
    const text = stored.artifacts[0].parts[0].content;
    expect(text?.$case === 'text' && text.value).toBe(
      Array.from({ length: 2000 }, (_, i) => `w${i} `).join(''),
    );
    // A caller changing what it loaded does not change the stored task.
    stored.artifacts[0].parts = [];
    stored.history.push({} as Task['history'][number]);
    const again = (await store.load('long', anyone))!;
    expect(again.artifacts[0].parts).toHaveLength(1);
    expect(again.history).toHaveLength(0);
  });

  it('forgets ended tasks once their time is up, and keeps tasks that are still going', async () => {
    let now = 0;
    const store = new BoundedTaskStore({ ttlMs: 1000, now: () => now });
    await store.save(task('done', TaskState.TASK_STATE_COMPLETED), anyone);
    await store.save(task('failed', TaskState.TASK_STATE_FAILED), anyone);
    await store.save(task('working', TaskState.TASK_STATE_WORKING), anyone);
    await store.save(task('asking', TaskState.TASK_STATE_INPUT_REQUIRED), anyone);
    now = 1000;
    expect((await store.load('done', anyone))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    now = 1001;
    expect(await store.load('done', anyone)).toBeUndefined();
    expect(await store.load('failed', anyone)).toBeUndefined();
    expect((await store.load('working', anyone))?.id).toBe('working');
    expect((await store.load('asking', anyone))?.id).toBe('asking');
    expect(store.size).toBe(2);
  });

  it('keeps at most `max` ended tasks, the oldest going first; a task saved again starts its time anew', async () => {
    let now = 0;
    const store = new BoundedTaskStore({ max: 2, now: () => now });
    for (const id of ['a', 'b', 'c']) {
      await store.save(task(id, TaskState.TASK_STATE_WORKING), anyone);
      now++;
    }
    for (const id of ['a', 'b']) {
      await store.save(task(id, TaskState.TASK_STATE_COMPLETED), anyone);
      now++;
    }
    // `a` goes on (a next message to its task), then ends again: now `b` is the oldest ended.
    await store.save(task('a', TaskState.TASK_STATE_WORKING), anyone);
    await store.save(task('a', TaskState.TASK_STATE_COMPLETED), anyone);
    await store.save(task('c', TaskState.TASK_STATE_CANCELED), anyone);
    expect(await store.load('b', anyone)).toBeUndefined();
    expect((await store.load('a', anyone))?.id).toBe('a');
    expect((await store.load('c', anyone))?.id).toBe('c');
    expect(store.size).toBe(2);
  });

  it("keeps each tenant's tasks apart, and hands out copies", async () => {
    const store = new BoundedTaskStore();
    await store.save(task('t', TaskState.TASK_STATE_WORKING), tenant('one'));
    expect(await store.load('t', tenant('two'))).toBeUndefined();
    const loaded = await store.load('t', tenant('one'));
    expect(loaded?.id).toBe('t');
    if (loaded?.status) loaded.status.state = TaskState.TASK_STATE_FAILED;
    expect((await store.load('t', tenant('one')))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect((await store.list({ tenant: 'two' } as never, tenant('two'))).tasks).toEqual([]);
  });

  it('lists newest first in pages, filtered by context and state, artifacts only when asked', async () => {
    const store = new BoundedTaskStore();
    for (let i = 0; i < 5; i++) {
      const state = i % 2 === 0 ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_WORKING;
      await store.save(task(`t${i}`, state, new Date(i * 1000).toISOString()), anyone);
    }
    const first = await store.list({ pageSize: 2 } as never, anyone);
    expect(first.tasks.map((t) => t.id)).toEqual(['t4', 't3']);
    expect(first.totalSize).toBe(5);
    expect(first.tasks[0].artifacts).toEqual([]);
    const second = await store.list({ pageSize: 2, pageToken: first.nextPageToken } as never, anyone);
    expect(second.tasks.map((t) => t.id)).toEqual(['t2', 't1']);
    const last = await store.list({ pageSize: 2, pageToken: second.nextPageToken } as never, anyone);
    expect(last.tasks.map((t) => t.id)).toEqual(['t0']);
    expect(last.nextPageToken).toBe('');
    const completed = await store.list(
      { status: TaskState.TASK_STATE_COMPLETED, includeArtifacts: true } as never,
      anyone,
    );
    expect(completed.tasks.map((t) => t.id)).toEqual(['t4', 't2', 't0']);
    expect(completed.tasks[0].artifacts).toHaveLength(1);
    expect((await store.list({ contextId: 'ctx-t1' } as never, anyone)).tasks.map((t) => t.id)).toEqual([
      't1',
    ]);
    const later = await store.list({ statusTimestampAfter: new Date(2500).toISOString() } as never, anyone);
    expect(later.tasks.map((t) => t.id)).toEqual(['t4', 't3']);
  });

  it('goes on past a page whose last task moved (a new status) or went (evicted) since', async () => {
    let clock = 0;
    const store = new BoundedTaskStore({ ttlMs: 1000, now: () => clock });
    for (let i = 0; i < 6; i++)
      await store.save(task(`t${i}`, TaskState.TASK_STATE_WORKING, new Date(i * 1000).toISOString()), anyone);
    const first = await store.list({ pageSize: 2 } as never, anyone);
    expect(first.tasks.map((t) => t.id)).toEqual(['t5', 't4']);
    // t4, the task the token names, gets a new status: it moves to the top.
    await store.save(task('t4', TaskState.TASK_STATE_WORKING, new Date(9000).toISOString()), anyone);
    const second = await store.list({ pageSize: 2, pageToken: first.nextPageToken } as never, anyone);
    expect(second.tasks.map((t) => t.id)).toEqual(['t3', 't2']);
    // t2 ends, and is evicted once its time is up: the page after it still comes.
    await store.save(task('t2', TaskState.TASK_STATE_COMPLETED, new Date(2000).toISOString()), anyone);
    clock += 2000;
    expect(await store.load('t2', anyone)).toBeUndefined();
    const third = await store.list({ pageSize: 2, pageToken: second.nextPageToken } as never, anyone);
    expect(third.tasks.map((t) => t.id)).toEqual(['t1', 't0']);
  });
});

describe('A2A tasks of a server', () => {
  it('are bounded: the oldest ended task is not found once more than `max` have ended', async () => {
    const agent = createAgent({ name: 'echo', provider: offline('echo') });
    const store = new InMemorySessionStore();
    const { app } = createApp({
      source: {
        list: () => [{ name: 'echo', description: 'echo' }],
        lease: (name) => (name === 'echo' ? { agent, store, release: () => undefined } : undefined),
        stores: async () => [store],
      },
      a2aTasks: { max: 2 },
    });
    const rpc = async (method: string, params: unknown) => {
      const response = await app.request('/a2a/echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await response.json()) as {
        result?: { id: string; status: { state: string } };
        error?: unknown;
      };
    };
    const ids: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const sent = await rpc('message/send', {
        message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] },
      });
      expect(sent.result?.status.state).toBe('completed');
      ids.push(sent.result?.id ?? '');
    }
    expect((await rpc('tasks/get', { id: ids[0] })).error).toMatchObject({ code: -32001 });
    expect((await rpc('tasks/get', { id: ids[1] })).result?.id).toBe(ids[1]);
    expect((await rpc('tasks/get', { id: ids[2] })).result?.id).toBe(ids[2]);
  });
});
