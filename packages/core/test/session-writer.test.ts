import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/index.js';
import { InMemorySessionStore } from '../src/index.js';
import { SessionWriter } from '../src/invocation/session-writer.js';
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

  it('flush writes at once and throws the first failed write; later writes still go out', async () => {
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
    writer.event(event('2'));
    await expect(writer.flush()).rejects.toThrow('disk full');
    expect(writes).toEqual(['append 2']);
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
