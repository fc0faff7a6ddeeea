import { createAgent, InMemorySessionStore, Runner } from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { MEMORY_STATE_KEY, type MemoryNote, memory } from '../../src/toolbox/memory.js';

// One run of user ada calling the memory tool with `args`, on `store`.
function run(store: InMemorySessionStore, session: string, args: Record<string, unknown>) {
  const agent = createAgent({
    name: 'noter',
    provider: scriptedModel([{ toolCalls: [{ name: 'memory', arguments: args }] }, { text: 'done' }]),
    tools: [memory()],
  });
  return new Runner({ agent, store }).run({ input: 'go', sessionId: session, userId: 'ada' }).invocation;
}

async function notes(store: InMemorySessionStore): Promise<Array<Pick<MemoryNote, 'id' | 'note'>>> {
  const stored = (await store.getScopedState('user:ada'))[MEMORY_STATE_KEY] as MemoryNote[];
  return stored.map(({ id, note }) => ({ id, note }));
}

describe('the memory tool', () => {
  it('runs of one user remembering and forgetting at the same time each change the latest list', async () => {
    const store = new InMemorySessionStore();
    await run(store, 'first', { action: 'remember', note: 'tea' });
    await run(store, 'second', { action: 'remember', note: 'coffee' });
    const results = await Promise.all([
      run(store, 'a', { action: 'forget', id: 1 }),
      run(store, 'b', { action: 'remember', note: 'water' }),
      run(store, 'c', { action: 'remember', note: 'juice' }),
    ]);
    expect(results.map((r) => r.toolCalls[0]?.result)).toEqual([
      'forgot note 1',
      'remembered as note 3',
      'remembered as note 4',
    ]);
    expect(await notes(store)).toEqual([
      { id: 2, note: 'coffee' },
      { id: 3, note: 'water' },
      { id: 4, note: 'juice' },
    ]);
  });

  it('forgetting a note that another run already forgot fails the call and writes nothing', async () => {
    const store = new InMemorySessionStore();
    await run(store, 'first', { action: 'remember', note: 'tea' });
    await run(store, 'second', { action: 'remember', note: 'coffee' });
    const [a, b] = await Promise.all([
      run(store, 'a', { action: 'forget', id: 1 }),
      run(store, 'b', { action: 'forget', id: 1 }),
    ]);
    expect([a.toolCalls[0]?.isError, b.toolCalls[0]?.isError]).toEqual([false, true]);
    expect(b.toolCalls[0]?.result).toContain('there is no note 1');
    expect(await notes(store)).toEqual([{ id: 2, note: 'coffee' }]);
  });

  it('a key holding something else than notes is left as it is', async () => {
    const store = new InMemorySessionStore();
    await store.updateScopedState('user:ada', { [MEMORY_STATE_KEY]: 'hand-written' });
    const result = await run(store, 's', { action: 'remember', note: 'tea' });
    expect(result.toolCalls[0]?.isError).toBe(true);
    expect(result.toolCalls[0]?.result).toContain('holds something other than a list of notes');
    expect((await store.getScopedState('user:ada'))[MEMORY_STATE_KEY]).toBe('hand-written');
  });
});
