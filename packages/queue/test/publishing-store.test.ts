import { holdSession, InMemorySessionStore } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { DetachedRunError, PublishingStore, type RunEventLog } from '../src/index.js';

describe('PublishingStore', () => {
  it("passes a run's lease on to the shared-state update: a worker that lost the session writes none, and stops", async () => {
    const store = new InMemorySessionStore();
    await store.create({ id: 's' });
    const held = await holdSession(store, 's', { holder: 'worker A', ttlMs: 30, onLost: () => undefined });
    // Shared-state updates publish nothing: the run's event log is never reached here.
    const log = { publish: async () => undefined } as unknown as RunEventLog;
    const publishing = new PublishingStore(store, log, 'run-1', held);
    await publishing.updateScopedState?.('user:ada', { 'user:plan': 'free' }, held.lease);
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:plan': 'free' });
    // Worker A's lease lapses (its process paused) and worker B takes the session.
    const stale = held.lease;
    await held.release();
    expect(await store.lease('s', { holder: 'worker B', ttlMs: 60_000 })).toHaveProperty('lease');
    await expect(publishing.updateScopedState?.('user:ada', { 'user:plan': 'stale' }, stale)).rejects.toThrow(
      'lost the lease on session s',
    );
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:plan': 'free' });
    // Like a refused append, the refusal detaches the store: nothing more is written by this worker.
    expect(publishing.lost).toBeDefined();
    await expect(publishing.updateScopedState?.('app', { 'app:x': 1 })).rejects.toBeInstanceOf(
      DetachedRunError,
    );
    expect(await store.getScopedState('app')).toEqual({});
  });

  it("passes the run's lease on to the update of one shared key; the update's own error does not stop the worker", async () => {
    const store = new InMemorySessionStore();
    await store.create({ id: 's' });
    const held = await holdSession(store, 's', { holder: 'worker A', ttlMs: 30, onLost: () => undefined });
    const log = { publish: async () => undefined } as unknown as RunEventLog;
    const publishing = new PublishingStore(store, log, 'run-1', held);
    const add = (note: string) => (current: unknown) => [...((current as string[] | undefined) ?? []), note];
    expect(await publishing.updateScopedKey?.('user:ada', 'user:notes', add('one'), held.lease)).toEqual([
      'one',
    ]);
    await expect(
      publishing.updateScopedKey?.(
        'user:ada',
        'user:notes',
        () => {
          throw new Error('there is no note 9');
        },
        held.lease,
      ),
    ).rejects.toThrow('there is no note 9');
    expect(publishing.lost).toBeUndefined();
    const stale = held.lease;
    await held.release();
    expect(await store.lease('s', { holder: 'worker B', ttlMs: 60_000 })).toHaveProperty('lease');
    await expect(publishing.updateScopedKey?.('user:ada', 'user:notes', add('stale'), stale)).rejects.toThrow(
      'lost the lease on session s',
    );
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:notes': ['one'] });
    expect(publishing.lost).toBeDefined();
    await expect(publishing.updateScopedKey?.('app', 'app:x', () => 1)).rejects.toBeInstanceOf(
      DetachedRunError,
    );
  });
});
