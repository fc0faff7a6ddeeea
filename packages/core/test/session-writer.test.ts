import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  createAgent,
  defineTool,
  findPairingProblem,
  historyFor,
  holdSession,
  InMemorySessionStore,
  Runner,
  SessionLeaseLostError,
} from '../src/index.js';
import { SessionWriter } from '../src/invocation/session-writer.js';
import { scriptedModel } from '../src/testing/index.js';
import { heapAfterGc as heap } from './support/heap.js';

const event = (id: string): AgentEvent =>
  ({
    type: 'state_delta',
    id,
    invocationId: 'i',
    branch: 'a',
    author: 'a',
    time: 0,
    delta: {},
  }) as AgentEvent;

// A store that records the order of its writes.
function recordingStore() {
  const store = new InMemorySessionStore();
  const writes: string[] = [];
  const append = store.append.bind(store);
  const update = store.updateScopedState.bind(store);
  store.append = async (id, events) => {
    writes.push(`append ${events.map((e) => e.id).join(',')}`);
    await append(id, events);
  };
  store.updateScopedState = async (scope, delta) => {
    writes.push(`scope ${scope}`);
    await update(scope, delta);
  };
  return { store, writes };
}

describe('SessionWriter', () => {
  it('writes the events of one turn together, in order with shared-scope updates', async () => {
    const { store, writes } = recordingStore();
    const session = await store.create({ id: 's' });
    const writer = new SessionWriter(store, session.id);
    writer.event(event('1'));
    writer.event(event('2'));
    writer.scoped('app', { 'app:x': 1 });
    writer.event(event('3'));
    await new Promise((resolve) => setImmediate(resolve));
    writer.event(event('4'));
    await writer.flush();
    expect(writes).toEqual(['append 1,2', 'scope app', 'append 3', 'append 4']);
    expect((await store.get('s'))?.events.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    expect(await store.getScopedState('app')).toEqual({ 'app:x': 1 });
  });

  it("updates one shared key in order with the writes queued before it; the update's own error stops nothing", async () => {
    const store = new InMemorySessionStore();
    await store.create({ id: 's' });
    const writer = new SessionWriter(store, 's');
    writer.scoped('app', { 'app:list': ['queued'] });
    const added = writer.scopedKey('app', 'app:list', (current) => [...(current as string[]), 'added']);
    const refused = writer.scopedKey('app', 'app:list', () => {
      throw new Error('no such note');
    });
    writer.event(event('after'));
    expect(await added).toEqual(['queued', 'added']);
    await expect(refused).rejects.toThrow('no such note');
    await writer.flush();
    expect(await store.getScopedState('app')).toEqual({ 'app:list': ['queued', 'added'] });
    expect((await store.get('s'))?.events.map((e) => e.id)).toEqual(['after']);
  });

  it('an update of one shared key by a holder whose lease was taken is refused, and so is what follows', async () => {
    const store = new InMemorySessionStore();
    await store.create({ id: 's' });
    const held = await holdSession(store, 's', { holder: 'A', ttlMs: 30, onLost: () => undefined });
    const writer = new SessionWriter(store, 's', held);
    expect(await writer.scopedKey('user:ada', 'user:n', () => 1)).toBe(1);
    // A's hold ends (as when its process paused past its lease) and B takes the session.
    await held.release();
    expect(await store.lease('s', { holder: 'B', ttlMs: 60_000 })).toHaveProperty('lease');
    const stale = writer.scopedKey('user:ada', 'user:n', (n) => (n as number) + 1);
    const next = writer.scopedKey('user:ada', 'user:n', (n) => (n as number) + 10);
    await expect(stale).rejects.toBeInstanceOf(SessionLeaseLostError);
    await expect(next).rejects.toBeInstanceOf(SessionLeaseLostError);
    await expect(writer.flush()).rejects.toBeInstanceOf(SessionLeaseLostError);
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:n': 1 });
  });

  it('flush writes at once and throws the first failed write; nothing after it is written until the end', async () => {
    const { store, writes } = recordingStore();
    await store.create({ id: 's' });
    const append = store.append;
    let calls = 0;
    store.append = async (id, events) => {
      if (calls++ === 0) throw new Error('disk full');
      await append(id, events);
    };
    const writer = new SessionWriter(store, 's');
    writer.event(event('1'));
    await expect(writer.flush()).rejects.toThrow('disk full');
    // Stored without 1, event 2 would leave a gap in the session.
    writer.event(event('2'));
    writer.scoped('app', { 'app:x': 1 });
    await expect(writer.flush()).rejects.toThrow('disk full');
    expect(writes).toEqual([]);
    // The invocation's end follows what the store holds.
    writer.ending();
    writer.event(event('end'));
    await expect(writer.flush()).rejects.toThrow('disk full');
    expect(writes).toEqual(['append end']);
  });

  it('a store that fails one write mid-run leaves a session the next run continues (no gap, one end)', async () => {
    let failures = 0;
    class FlakyStore extends InMemorySessionStore {
      override async append(id: string, events: readonly AgentEvent[]): Promise<void> {
        // The database restarts while the model's call is written; it is back for the tool's result.
        if (failures === 0 && events.some((e) => e.type === 'tool_call')) {
          failures++;
          throw new Error('connection refused');
        }
        return super.append(id, events);
      }
    }
    const store = new FlakyStore();
    const stamp = defineTool({
      name: 'stamp',
      description: 'stamps',
      parameters: {},
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return 'stamped';
      },
    });
    const agent = createAgent({
      name: 'a',
      provider: scriptedModel([{ toolCalls: [{ name: 'stamp' }] }, { text: 'done' }, { text: 'again' }]),
      tools: [stamp],
    });
    const failed = await new Runner({ agent, store })
      .run({ input: 'x', sessionId: 's' })
      .invocation.catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'INTERNAL_ERROR', message: 'connection refused' });
    const events = (await store.get('s'))!.events;
    expect(events.map((e) => e.type)).not.toContain('tool_result');
    expect(events.filter((e) => e.type === 'run_end')).toMatchObject([{ status: 'error' }]);
    expect(findPairingProblem(historyFor(events, 'a', new Set()))).toBeUndefined();
    const next = await new Runner({ agent, store }).run({ input: 'y', sessionId: 's' }).invocation;
    expect(next.status).toBe('complete');
  });

  it('many writers in one turn each write their own events together, after the turn and in order', async () => {
    const { store, writes } = recordingStore();
    const writers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        await store.create({ id: `s${i}` });
        return new SessionWriter(store, `s${i}`);
      }),
    );
    writers.forEach((writer, i) => {
      writer.event(event(`${i}.1`));
      writer.event(event(`${i}.2`));
    });
    // Nothing is written during the turn that made the events.
    await Promise.resolve();
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    for (const [i, writer] of writers.entries()) writer.event(event(`${i}.3`));
    await Promise.all(writers.map((writer) => writer.flush()));
    expect(writes).toEqual([
      ...writers.map((_, i) => `append ${i}.1,${i}.2`),
      ...writers.map((_, i) => `append ${i}.3`),
    ]);
    for (let i = 0; i < writers.length; i++) {
      expect((await store.get(`s${i}`))?.events.map((e) => e.id)).toEqual([`${i}.1`, `${i}.2`, `${i}.3`]);
    }
  });

  it('a writer flushed before the turn ends is not kept (nor its store and session) until then', async () => {
    const big = (id: string): AgentEvent => ({
      ...event(id),
      delta: { text: `${id} ${'x'.repeat(100_000)}` },
    });
    // Many runs ending in one turn: each flushes its writer, then lets its store go.
    const writeAndFlush = async (i: number) => {
      const store = new InMemorySessionStore();
      await store.create({ id: 's' });
      const writer = new SessionWriter(store, 's');
      writer.event(big(String(i)));
      await writer.flush();
    };
    const before = heap();
    await Promise.all(Array.from({ length: 100 }, (_, i) => writeAndFlush(i)));
    // Still the same turn (an in-memory store writes in microtasks): 100 sessions of ~100 KB each
    // would be ~10 MB here if the turn-end list still held their writers.
    expect(heap() - before).toBeLessThan(2_000_000);
    await new Promise((resolve) => setImmediate(resolve));
  });
});
