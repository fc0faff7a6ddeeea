import { describe, expect, it } from 'vitest';
import {
  agentTool,
  createAgent,
  defineTool,
  InMemorySessionStore,
  ParallelAgent,
  Runner,
  type SessionStore,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { approvalRefund } from './support/tools.js';

// `add` appends its `note` to a list under `key` with `state.update`, waiting for `before` and then
// `after` (when given): the step's delta is written at the turn's end, after whatever ran meanwhile.
function adder(after?: (note: string) => Promise<void>, before?: (note: string) => Promise<void>) {
  return defineTool<{ key: string; note: string }, string>({
    name: 'add',
    description: 'adds a note',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string' }, note: { type: 'string' } },
      required: ['key', 'note'],
    },
    async execute({ key, note }, { state }) {
      await before?.(note);
      const list = await state.update(key, (current) => [...((current as string[] | undefined) ?? []), note]);
      if (state.get(key) !== list) throw new Error('the call does not see its own update');
      await after?.(note);
      return (list as string[]).join(',');
    },
  });
}

function agentAdding(
  notes: Array<{ key: string; note: string }>,
  after?: (note: string) => Promise<void>,
  before?: (note: string) => Promise<void>,
) {
  return createAgent({
    name: 'noter',
    provider: scriptedModel([
      { toolCalls: notes.map((args) => ({ name: 'add', arguments: args })) },
      { text: 'done' },
    ]),
    tools: [adder(after, before)],
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('state.update of a shared key', () => {
  it('two runs of one user each keep their note: the first run does not write its older list back at its turn end', async () => {
    const store = new InMemorySessionStore();
    const secondDone = deferred();
    // The first run holds its step open until the second run has added its note and ended: its
    // own step's delta is written after that.
    const first = new Runner({
      agent: agentAdding([{ key: 'user:notes', note: 'A' }], () => secondDone.promise),
      store,
    }).run({ input: 'go', sessionId: 'a', userId: 'ada' }).invocation;
    const second = new Runner({ agent: agentAdding([{ key: 'user:notes', note: 'B' }]), store }).run({
      input: 'go',
      sessionId: 'b',
      userId: 'ada',
    }).invocation;
    void second.then(secondDone.resolve, secondDone.resolve);
    const [a, b] = await Promise.all([first, second]);
    expect((await store.getScopedState('user:ada'))['user:notes']).toEqual(['A', 'B']);
    // Each run's events and view say what its update made.
    expect(a.toolCalls[0]?.result).toBe('A');
    expect(b.toolCalls[0]?.result).toBe('A,B');
    expect(a.state['user:notes']).toEqual(['A']);
    expect(b.state['user:notes']).toEqual(['A', 'B']);
    const deltas = (await store.get('a'))?.events
      .filter((e) => e.type === 'tool_result')
      .map((e) => e.stateDelta);
    expect(deltas).toEqual([{ 'user:notes': ['A'] }]);
    // A later run of the user starts from the stored list.
    const third = await new Runner({ agent: agentAdding([{ key: 'user:notes', note: 'C' }]), store }).run({
      input: 'go',
      sessionId: 'c',
      userId: 'ada',
    }).invocation;
    expect(third.toolCalls[0]?.result).toBe('A,B,C');
    expect((await store.getScopedState('user:ada'))['user:notes']).toEqual(['A', 'B', 'C']);
  });

  it('calls of one step updating the same key both land, whatever order their results are recorded in', async () => {
    const store = new InMemorySessionStore();
    // Results are recorded as calls end: the first call updates first but ends last, so the
    // result recorded last holds the older list.
    const oneAdded = deferred();
    const twoAdded = deferred();
    const result = await new Runner({
      agent: agentAdding(
        [
          { key: 'app:log', note: 'one' },
          { key: 'app:log', note: 'two' },
        ],
        async (note) => {
          if (note === 'one') {
            oneAdded.resolve();
            await twoAdded.promise;
            await new Promise((resolve) => setImmediate(resolve));
          } else twoAdded.resolve();
        },
        (note) => (note === 'two' ? oneAdded.promise : Promise.resolve()),
      ),
      store,
    }).run({ input: 'go', sessionId: 's' }).invocation;
    expect(result.toolCalls.map((c) => c.result)).toEqual(['one,two', 'one']);
    expect((await store.getScopedState('app'))['app:log']).toEqual(['one', 'two']);
    // The run's view, and the session its events rebuild, end where the store is: the result
    // recorded last carries the list after both updates, not the older one its call made.
    expect(result.state['app:log']).toEqual(['one', 'two']);
    const session = await store.get('s');
    expect(session?.state['app:log']).toEqual(['one', 'two']);
    const last = session?.events.filter((e) => e.type === 'tool_result').at(-1);
    expect(last).toMatchObject({ stateDelta: { 'app:log': ['one', 'two'] }, storedKeys: ['app:log'] });
  });

  it("a step's whole write of a key after an update of it in the same step is what the view and store keep", async () => {
    const store = new InMemorySessionStore();
    const updated = deferred();
    const written = deferred();
    const slowAdd = defineTool({
      name: 'add',
      description: 'adds',
      parameters: {},
      async execute(_args, { state }) {
        await state.update('app:log', (current) => [...((current as string[] | undefined) ?? []), 'added']);
        updated.resolve();
        await written.promise;
        await new Promise((resolve) => setImmediate(resolve));
        return 'added';
      },
    });
    const reset = defineTool({
      name: 'reset',
      description: 'resets',
      parameters: {},
      async execute(_args, { state }) {
        await updated.promise;
        state.set('app:log', ['reset']);
        return 'reset';
      },
    });
    const runner = new Runner({
      agent: createAgent({
        name: 'noter',
        provider: scriptedModel([{ toolCalls: [{ name: 'add' }, { name: 'reset' }] }, { text: 'done' }]),
        tools: [slowAdd, reset],
      }),
      store,
    });
    const handle = runner.run({
      input: 'go',
      sessionId: 's',
      onEvent: (e) => {
        if (e.type === 'tool_result' && e.name === 'reset') written.resolve();
      },
    });
    const result = await handle.invocation;
    expect((await store.getScopedState('app'))['app:log']).toEqual(['reset']);
    expect(result.state['app:log']).toEqual(['reset']);
    expect((await store.get('s'))?.state['app:log']).toEqual(['reset']);
  });

  it('a session key, a user: key without a user, and a store without updateScopedKey are a get then a set', async () => {
    const store = new InMemorySessionStore();
    const session = await new Runner({
      agent: agentAdding([
        { key: 'notes', note: 'x' },
        { key: 'user:notes', note: 'y' },
      ]),
      store,
    }).run({ input: 'go', sessionId: 's' }).invocation;
    expect(session.state).toMatchObject({ notes: ['x'], 'user:notes': ['y'] });
    expect(await store.getScopedState('user:ada')).toEqual({});

    const plain: SessionStore = Object.assign(new InMemorySessionStore(), { updateScopedKey: undefined });
    await new Runner({ agent: agentAdding([{ key: 'user:notes', note: 'z' }]), store: plain }).run({
      input: 'go',
      sessionId: 's',
      userId: 'ada',
    }).invocation;
    // Written as today: the step's delta, at the turn's end.
    expect(await plain.getScopedState?.('user:ada')).toEqual({ 'user:notes': ['z'] });
  });

  it("an update that throws fails only its call: nothing is stored, and the run's later writes go on", async () => {
    const store = new InMemorySessionStore();
    const refuse = defineTool({
      name: 'refuse',
      description: 'refuses',
      parameters: {},
      async execute(_args, { state }) {
        await state
          .update('user:notes', async () => ['a promise is not stored'])
          .catch((error: Error) => {
            if (!/synchronous/.test(error.message)) throw error;
          });
        await state.update('user:notes', () => {
          throw new Error('there is no note 9');
        });
        return 'unreachable';
      },
    });
    const result = await new Runner({
      agent: createAgent({
        name: 'noter',
        provider: scriptedModel([
          { toolCalls: [{ name: 'refuse' }] },
          { toolCalls: [{ name: 'add', arguments: { key: 'user:notes', note: 'kept' } }] },
          { text: 'done' },
        ]),
        tools: [refuse, adder()],
      }),
      store,
    }).run({ input: 'go', sessionId: 's', userId: 'ada' }).invocation;
    expect(result.toolCalls.map((c) => [c.isError, c.result])).toEqual([
      [true, expect.stringContaining('there is no note 9')],
      [false, 'kept'],
    ]);
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:notes': ['kept'] });
  });

  it("a parallel fan-out resumed after a branch's pause merges without writing its stored updates whole", async () => {
    const store = new InMemorySessionStore();
    const ran: string[] = [];
    const fan = new ParallelAgent({
      name: 'fan',
      subAgents: [
        createAgent({
          name: 'payer',
          provider: scriptedModel([
            { toolCalls: [{ id: 'r1', name: 'refund', arguments: { order: 'A1' } }] },
            { toolCalls: [{ name: 'add', arguments: { key: 'user:notes', note: 'C' } }] },
            { text: 'paid' },
          ]),
          tools: [approvalRefund(ran), adder()],
        }),
        // Declared last, its older list wins the merge: written whole, it would undo B and C.
        agentAdding([{ key: 'user:notes', note: 'A' }]),
      ],
    });
    const paused = await new Runner({ agent: fan, store }).run({ input: 'go', sessionId: 'p', userId: 'ada' })
      .invocation;
    expect(paused.status).toBe('paused');
    expect((await store.getScopedState('user:ada'))['user:notes']).toEqual(['A']);
    // While the fan-out waits for a human, another run of the user adds its note.
    await new Runner({ agent: agentAdding([{ key: 'user:notes', note: 'B' }]), store }).run({
      input: 'go',
      sessionId: 'other',
      userId: 'ada',
    }).invocation;
    // Resumed without naming the user (as a decision posted to the server may be): the run goes
    // on for the user it paused for.
    const resumed = await new Runner({ agent: fan, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(resumed.status).toBe('complete');
    expect(ran).toEqual(['A1']);
    expect((await store.getScopedState('user:ada'))['user:notes']).toEqual(['A', 'B', 'C']);
    expect(resumed.state['user:notes']).toEqual(['A', 'B', 'C']);
    const merge = (await store.get('p'))?.events.find((e) => e.type === 'state_delta');
    expect(merge).toMatchObject({
      storedKeys: ['user:notes'],
      delta: { 'user:notes': ['A', 'B', 'C'] },
      stateDelta: { 'user:notes': ['A', 'B', 'C'] },
    });
  });

  it("an agent tool's child run shares the caller's user: its user: keys are the user's, not its session's", async () => {
    const store = new InMemorySessionStore();
    await store.updateScopedState('user:ada', { 'user:notes': ['before'] });
    const boss = createAgent({
      name: 'boss',
      provider: scriptedModel([
        { toolCalls: [{ name: 'noter', arguments: { request: 'note it' } }] },
        { text: 'delegated' },
      ]),
      tools: [agentTool(agentAdding([{ key: 'user:notes', note: 'child' }]))],
    });
    const result = await new Runner({ agent: boss, store }).run({
      input: 'go',
      sessionId: 'b',
      userId: 'ada',
    }).invocation;
    expect(result.status).toBe('complete');
    expect((await store.getScopedState('user:ada'))['user:notes']).toEqual(['before', 'child']);
  });

  it("user: keys written without a user last the session (a chat's next turn sees them), and never show another user's", async () => {
    const store = new InMemorySessionStore();
    const turn = async (note: string, userId?: string) =>
      new Runner({ agent: agentAdding([{ key: 'user:notes', note }]), store }).run({
        input: 'go',
        sessionId: 's',
        userId,
      }).invocation;
    await turn('one');
    expect((await turn('two')).state['user:notes']).toEqual(['one', 'two']);
    // A turn for a user works on the user's notes; the next turn without one is back to the session's.
    expect((await turn('ada', 'ada')).state['user:notes']).toEqual(['ada']);
    expect((await turn('three')).state['user:notes']).toEqual(['one', 'two', 'three']);
    // An empty user id is no user.
    expect((await turn('four', '')).state['user:notes']).toEqual(['one', 'two', 'three', 'four']);
    expect((await turn('five')).state['user:notes']).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:notes': ['ada'] });
  });
});
