import { describe, expect, it, vi } from 'vitest';
import {
  type AgentEvent,
  agentTool,
  type ChatParams,
  createAgent,
  defineTool,
  InMemorySessionStore,
  InvalidSessionIdError,
  type LeaseRequest,
  type ModelResponse,
  Runner,
  SessionBusyError,
  type SessionLease,
  SessionLeaseLostError,
  type SessionStore,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

/** A gate a tool waits at, so a test can hold an invocation open. */
function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const reached = new Promise<void>((r) => {
    entered = r;
  });
  return { open, reached, opened, entered };
}

// Each run: one call to `wait`, then an answer. The model is shared, as a remote model would be.
function agentWith(g: ReturnType<typeof gate>, runs: number, fail = false) {
  const wait = defineTool({
    name: 'wait',
    description: 'waits at the gate',
    parameters: {},
    execute: async () => {
      g.entered();
      await g.opened;
      if (fail) throw new Error('tool broke');
      return 'through';
    },
  });
  const turns = Array.from({ length: runs }, (_, i) => [
    { toolCalls: [{ name: 'wait', id: `w${i}` }] },
    { text: `answer ${i}` },
  ]).flat();
  return createAgent({ name: 'gated', provider: scriptedModel(turns), tools: [wait] });
}

describe('one invocation at a time per session', () => {
  it('refuses a second run on a busy session at once, naming the running invocation', async () => {
    const g = gate();
    const runner = new Runner({ agent: agentWith(g, 2), store: new InMemorySessionStore() });
    const first = runner.run({ input: 'one', sessionId: 's' });
    await g.reached;
    const started = Date.now();
    const second = await runner.run({ input: 'two', sessionId: 's' }).invocation.catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(second).toBeInstanceOf(SessionBusyError);
    // The writer stores a turn's events at the end of that turn of the event loop: the tool can be
    // reached (with no I/O on the way) before the first event is stored.
    const firstId = await vi.waitFor(async () => (await runner.store.get('s'))!.events[0]!.invocationId);
    expect((second as Error).message).toContain(`invocation ${firstId}`);
    expect((second as Error).message).toContain('session s is busy');
    g.open();
    expect((await first.invocation).status).toBe('complete');
    // Released: the session continues.
    expect((await runner.run({ input: 'three', sessionId: 's' }).invocation).output).toBe('answer 1');
  });

  it('with wait, a second run (and a concurrent first run on a new id) runs after the first', async () => {
    const g = gate();
    const runner = new Runner({ agent: agentWith(g, 2), store: new InMemorySessionStore() });
    const first = runner.run({ input: 'one', sessionId: 'brand-new' });
    await g.reached;
    const second = runner.run({ input: 'two', sessionId: 'brand-new', wait: 5_000 });
    await new Promise((r) => setTimeout(r, 150));
    g.open();
    const results = await Promise.all([first.invocation, second.invocation]);
    expect(results.map((r) => r.output)).toEqual(['answer 0', 'answer 1']);
    const session = (await runner.store.get('brand-new'))!;
    const users = session.events.filter((e) => e.type === 'message' && e.author === 'user');
    expect(users.map((e) => (e.type === 'message' ? e.message.content : ''))).toEqual(['one', 'two']);
    // No interleaving: every event of the first invocation comes before the second's.
    const ids = session.events.map((e) => e.invocationId);
    expect(ids.lastIndexOf(ids[0]!)).toBeLessThan(ids.indexOf(results[1]!.invocationId));
  });

  it('gives up waiting after the bound, saying how long it waited', async () => {
    const g = gate();
    const runner = new Runner({ agent: agentWith(g, 1), store: new InMemorySessionStore() });
    const first = runner.run({ input: 'one', sessionId: 's' });
    await g.reached;
    const error = await runner.run({ input: 'two', sessionId: 's', wait: 200 }).invocation.catch((e) => e);
    expect(error).toBeInstanceOf(SessionBusyError);
    expect((error as Error).message).toMatch(/busy after waiting \d+ ms/);
    g.open();
    await first.invocation;
  });

  it('releases the lease when the run fails, is cancelled, or never starts', async () => {
    const store = new InMemorySessionStore();
    // True when nobody holds the session (the lease taken to check is given back).
    const free = async (id: string) => {
      const answer = await store.lease(id, { holder: 'test', ttlMs: 1_000 });
      if ('lease' in answer) await store.releaseLease(answer.lease);
      return 'lease' in answer;
    };
    const g = gate();
    g.open();
    const failing = new Runner({ agent: agentWith(g, 1, true), store });
    await failing.run({ input: 'x', sessionId: 'f' }).invocation;
    expect(await free('f')).toBe(true);

    const held = gate();
    const runner = new Runner({ agent: agentWith(held, 1), store });
    const controller = new AbortController();
    const cancelled = runner.run({ input: 'x', sessionId: 'c', signal: controller.signal });
    await held.reached;
    controller.abort();
    held.open();
    await expect(cancelled.invocation).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await free('c')).toBe(true);

    // A resume of a session that is not paused fails before running; the lease goes all the same.
    await expect(runner.resume({ sessionId: 'f', decisions: [] }).invocation).rejects.toThrow(/not paused/);
    expect(await free('f')).toBe(true);
  });

  it('checks the session id before anything: a bad id is a usage error', async () => {
    const runner = new Runner({ agent: agentWith(gate(), 1), store: new InMemorySessionStore() });
    for (const id of ['../../x', 'index', 'x'.repeat(129)]) {
      const error = await runner.run({ input: 'x', sessionId: id }).invocation.catch((e: unknown) => e);
      expect(error, id).toBeInstanceOf(InvalidSessionIdError);
      expect((error as Error).message).toContain('a session id is 1-128 characters');
    }
    expect(await runner.store.list()).toEqual([]);
  });

  it('an agent run as a tool holds the lease of its child session', async () => {
    const leased: string[] = [];
    class Watching extends InMemorySessionStore {
      override lease(id: string, request: LeaseRequest) {
        leased.push(id);
        return super.lease(id, request);
      }
    }
    const store: SessionStore = new Watching();
    const child = createAgent({ name: 'helper', provider: scriptedModel([{ text: 'helped' }]) });
    const parent = createAgent({
      name: 'boss',
      provider: scriptedModel([
        { toolCalls: [{ name: 'helper', arguments: { request: 'go' } }] },
        { text: 'done' },
      ]),
      tools: [agentTool(child)],
    });
    const result = await new Runner({ agent: parent, store }).run({ input: 'x', sessionId: 'top' })
      .invocation;
    expect(result.output).toBe('done');
    const [kid] = await store.list({ parentId: 'top' });
    expect(leased).toEqual(['top', kid!.id]);
  });
});

describe('the lease while an invocation runs', () => {
  it('is renewed past its first expiry, and a lost lease stops the invocation', async () => {
    const store = new InMemorySessionStore();
    const seen: string[] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'outlives the lease TTL, then stalls the event loop past it',
      parameters: {},
      execute: async () => {
        await new Promise((r) => setTimeout(r, 300));
        // Renewed while the tool waited: still held, well after the 90 ms TTL.
        seen.push('busy' in (await store.lease('s', { holder: 'intruder', ttlMs: 1_000 })) ? 'held' : 'free');
        // A stall longer than the TTL lets the lease lapse; another invocation takes it meanwhile.
        const until = Date.now() + 200;
        while (Date.now() < until) {
          // busy wait: no timer (and so no renewal) runs
        }
        const taken = await store.lease('s', { holder: 'intruder', ttlMs: 10_000 });
        seen.push('lease' in taken ? 'taken' : 'still held');
        await new Promise((r) => setTimeout(r, 100));
        return 'done';
      },
    });
    const agent = createAgent({
      name: 'a',
      provider: scriptedModel([{ toolCalls: [{ name: 'slow' }] }, { text: 'never' }]),
      tools: [slow],
    });
    const run = new Runner({ agent, store, leaseTtlMs: 90 }).run({ input: 'x', sessionId: 's' });
    const error = await run.invocation.catch((e: unknown) => e);
    expect(seen).toEqual(['held', 'taken']);
    expect(error).toMatchObject({ message: expect.stringContaining('lost the lease on session s') });
  });
});

describe('a run held up past its lease', () => {
  it('writes nothing once another holder has taken the session: its events, error and checkpoint stay out', async () => {
    // Every write the store takes, and where the intruder came in.
    const written: string[] = [];
    class Recording extends InMemorySessionStore {
      override async append(id: string, events: readonly AgentEvent[]): Promise<void> {
        written.push(...events.map((e) => e.type));
        return super.append(id, events);
      }
      override async setCheckpoint(id: string, checkpoint: unknown): Promise<void> {
        written.push(checkpoint === undefined ? 'clear checkpoint' : 'checkpoint');
        return super.setCheckpoint(id, checkpoint);
      }
    }
    const store = new Recording();
    const stall = defineTool({
      name: 'stall',
      description: 'holds the event loop past the lease, as a stopped process would',
      parameters: {},
      execute: async () => {
        const until = Date.now() + 200;
        while (Date.now() < until) {
          // busy wait: no timer (and so no renewal) runs
        }
        // Another invocation takes the lapsed lease (as `run --session` in another process would).
        const taken = await store.lease('s', { holder: 'intruder', ttlMs: 10_000 });
        written.push('lease' in taken ? 'TAKEN' : 'still held');
        return 'done';
      },
    });
    const agent = createAgent({
      name: 'a',
      provider: scriptedModel([{ toolCalls: [{ name: 'stall' }] }, { text: 'never' }]),
      tools: [stall],
    });
    const runner = new Runner({ agent, store, leaseTtlMs: 90, writeBeforeTools: true });
    const error = await runner.run({ input: 'x', sessionId: 's' }).invocation.catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ABORTED',
      message: expect.stringContaining('lost the lease on session s'),
    });
    // The call was written before its tool ran; nothing after the intruder came in, not even the
    // result of the call it was running.
    expect(written.slice(0, written.indexOf('TAKEN'))).toContain('message');
    expect(written.slice(written.indexOf('TAKEN'))).toEqual(['TAKEN']);
  });
});

describe('a write racing the loss of its lease', () => {
  it('is refused by the store itself when the runner believes it still holds the lease', async () => {
    // The runner's own check passes (its renewals say the lease holds, as they would for a write
    // sent a moment before the lease changed hands); only the store's fence can stop the write.
    const written: string[] = [];
    class Raced extends InMemorySessionStore {
      override async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
        return { ...lease, expiresAt: Date.now() + ttlMs };
      }
      override async append(id: string, events: readonly AgentEvent[], fence?: SessionLease): Promise<void> {
        await super.append(id, events, fence);
        written.push(...events.map((e) => e.type));
      }
      override async setCheckpoint(id: string, checkpoint: unknown, fence?: SessionLease): Promise<void> {
        await super.setCheckpoint(id, checkpoint, fence);
        written.push('checkpoint');
      }
    }
    const store = new Raced();
    const late = defineTool({
      name: 'late',
      description: 'outlives the lease, which another holder takes meanwhile',
      parameters: {},
      execute: async () => {
        await new Promise((r) => setTimeout(r, 200));
        const taken = await store.lease('s', { holder: 'intruder', ttlMs: 10_000 });
        written.push('lease' in taken ? 'TAKEN' : 'still held');
        return 'done';
      },
    });
    const agent = createAgent({
      name: 'a',
      provider: scriptedModel([{ toolCalls: [{ name: 'late' }] }, { text: 'never' }]),
      tools: [late],
    });
    const runner = new Runner({ agent, store, leaseTtlMs: 90, writeBeforeTools: true });
    const error = await runner.run({ input: 'x', sessionId: 's' }).invocation.catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ABORTED',
      message: 'lost the lease on session s: intruder took it after it expired',
    });
    expect((error as Error).cause).toBeInstanceOf(SessionLeaseLostError);
    // The call went in before the intruder came; neither its result, nor the run's error and end, after.
    expect(written.slice(0, written.indexOf('TAKEN'))).toContain('message');
    expect(written.slice(written.indexOf('TAKEN'))).toEqual(['TAKEN']);
    const session = await store.get('s');
    expect(session?.events.map((e) => e.type)).not.toContain('tool_result');
  });
});

describe('a run whose last write is refused', () => {
  // Events as a caller sees them, stream and callback both; the run's outcome.
  async function ending(runner: Runner) {
    const called: AgentEvent[] = [];
    const run = runner.run({ input: 'x', sessionId: 's', onEvent: (e) => called.push(e) });
    const streamed: AgentEvent[] = [];
    const reading = (async () => {
      for await (const event of run) streamed.push(event);
    })().catch(() => undefined);
    const error = await run.invocation.catch((e: unknown) => e);
    await reading;
    return { called, streamed, error };
  }

  it('ends with one run_end, an error, when the lease is taken as it ends (it never says complete)', async () => {
    const store = new InMemorySessionStore();
    const agent = createAgent({
      name: 'a',
      provider: {
        name: 'stalling',
        // The answer comes after a stall past the lease, which another invocation takes meanwhile.
        async chat(): Promise<ModelResponse> {
          const until = Date.now() + 200;
          while (Date.now() < until) {
            // busy wait: no timer (and so no renewal) runs
          }
          await store.lease('s', { holder: 'intruder', ttlMs: 10_000 });
          return {
            content: 'done',
            toolCalls: [],
            usage: { inputTokens: 1, outputTokens: 1 },
            finishReason: 'stop',
          };
        },
        async *stream(params: ChatParams) {
          yield { type: 'done' as const, response: await this.chat(params) };
        },
      },
    });
    const { called, streamed, error } = await ending(new Runner({ agent, store, leaseTtlMs: 90 }));
    expect(error).toMatchObject({
      code: 'ABORTED',
      message: expect.stringContaining('lost the lease on session s'),
    });
    for (const events of [called, streamed]) {
      const ends = events.filter((e) => e.type === 'run_end');
      expect(ends).toHaveLength(1);
      expect(ends[0]).toMatchObject({ status: 'error' });
      expect(events.at(-1)).toBe(ends[0]);
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    }
  });

  it('ends with one run_end, an error, when the store refuses the write of its end', async () => {
    class Refusing extends InMemorySessionStore {
      override async append(id: string, events: readonly AgentEvent[]): Promise<void> {
        if (events.some((e) => e.type === 'run_end' && e.status === 'complete'))
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return super.append(id, events);
      }
    }
    const store = new Refusing();
    const agent = createAgent({ name: 'a', provider: scriptedModel([{ text: 'done' }]) });
    const { called, error } = await ending(new Runner({ agent, store }));
    expect(error).toBeInstanceOf(Error);
    expect(called.filter((e) => e.type === 'run_end')).toEqual([
      expect.objectContaining({ status: 'error' }),
    ]);
    // The session says the same: the run ended in an error, once.
    const stored = await store.get('s');
    expect(stored!.events.filter((e) => e.type === 'run_end')).toEqual([
      expect.objectContaining({ status: 'error' }),
    ]);
  });
});

describe('a lease the store cannot renew', () => {
  it('ends the run as ABORTED blamed on the server (internal), not as a cancel, keeping the text', async () => {
    // A store whose database goes away once the run has begun: every renewal fails until the lease
    // is past its expiry, and the run must stop.
    class FailingStore extends InMemorySessionStore {
      down = false;
      override async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
        if (this.down) throw new Error('connect ECONNREFUSED db.internal:5432');
        return super.renewLease(lease, ttlMs);
      }
    }
    const store = new FailingStore();
    const g = gate();
    const agent = agentWith(g, 1);
    const run = new Runner({ agent, store, leaseTtlMs: 60 }).run({ input: 'x', sessionId: 's' });
    const events: AgentEvent[] = [];
    const reading = (async () => {
      for await (const event of run) events.push(event);
    })().catch(() => undefined);
    await g.reached;
    store.down = true;
    const error = await run.invocation.catch((e: unknown) => e);
    g.open();
    await reading;
    expect(error).toMatchObject({ code: 'ABORTED', blame: 'internal' });
    expect((error as Error).message).toBe(
      'lost the lease on session s: the store could not renew it (connect ECONNREFUSED db.internal:5432)',
    );
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      code: 'ABORTED',
      context: { blame: 'internal' },
    });
  });
});

describe('lease renewal under load', () => {
  it('concurrent invocations share one renewal timer, and each keeps its lease', async () => {
    const store = new InMemorySessionStore();
    const runs = 40;
    let inside = 0;
    let release!: () => void;
    const gateOpen = new Promise<void>((r) => {
      release = r;
    });
    let allInside!: () => void;
    const everyoneInside = new Promise<void>((r) => {
      allInside = r;
    });
    const hold = defineTool({
      name: 'hold',
      description: 'waits until every run is inside',
      parameters: {},
      execute: async () => {
        if (++inside === runs) allInside();
        await gateOpen;
        return 'ok';
      },
    });
    const agent = createAgent({
      name: 'held',
      // Stateless, so the concurrent runs can share it: a call first, then the answer.
      provider: {
        name: 'stateless',
        async chat(params: ChatParams): Promise<ModelResponse> {
          const answered = params.messages.at(-1)?.role === 'tool';
          return {
            content: answered ? 'done' : null,
            toolCalls: answered ? [] : [{ id: 'h', name: 'hold', arguments: {} }],
            usage: { inputTokens: 1, outputTokens: 1 },
            finishReason: answered ? 'stop' : 'tool_calls',
          };
        },
        async *stream(params: ChatParams) {
          yield { type: 'done' as const, response: await this.chat(params) };
        },
      },
      tools: [hold],
    });
    const results = Array.from(
      { length: runs },
      (_, i) =>
        new Runner({ agent, store, leaseTtlMs: 60_000 }).run({ input: 'x', sessionId: `load-${i}` })
          .invocation,
    );
    await everyoneInside;
    // Every run waits in its tool: one timer per tool call (its timeout) and one shared renewal
    // timer, where a timer per invocation would make twice as many.
    const timers = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    expect(timers).toBeGreaterThanOrEqual(runs);
    expect(timers).toBeLessThan(runs + 10);
    for (let i = 0; i < runs; i++) {
      expect(await store.lease(`load-${i}`, { holder: 'other', ttlMs: 1_000 })).toHaveProperty('busy');
    }
    release();
    for (const result of await Promise.all(results)) expect(result.output).toBe('done');
  });
});
