import {
  type AgentEvent,
  AutoModel,
  createAgent,
  defineTool,
  findPairingProblem,
  historyFor,
  InMemorySessionStore,
  Runner,
  type Session,
  type SessionLease,
} from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT, type RunEnd, RunQueue, type RunStreamEntry, RunWorker } from '../src/index.js';
import { useRedis } from './support/use-redis.js';

const { connect } = useRedis();

async function collect(queue: RunQueue, runId: string): Promise<RunStreamEntry[]> {
  const out: RunStreamEntry[] = [];
  for await (const entry of queue.follow(runId)) out.push(entry);
  return out;
}

function streamEvents(entries: RunStreamEntry[]): AgentEvent[] {
  return entries.flatMap((e) => (e.event ? [e.event] : []));
}

describe('queued runs', () => {
  it('a worker runs a queued run and its events reach the stream once each, in session order', async () => {
    await (await connect()).flushall();
    const store = new InMemorySessionStore();
    const lookup = defineTool<{ id: string }>({
      name: 'lookup',
      description: 'looks up an order',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      execute: ({ id }) => `order ${id}: shipped`,
    });
    const agent = createAgent({ name: 'clerk', provider: new AutoModel(), tools: [lookup] });
    const worker = new RunWorker({
      connection: await connect(),
      agents: () => ({ agent, store, release: () => undefined }),
    });
    await worker.start();
    const queue = new RunQueue(await connect());
    const { runId, sessionId } = await queue.enqueue({ agent: 'clerk', input: 'where is my order?' });
    const entries = await collect(queue, runId);
    const end = entries.at(-1)?.end as RunEnd;
    expect(end).toMatchObject({ status: 'complete', sessionId });
    expect(end.output).toContain('order');
    const session = await store.get(sessionId);
    const streamed = streamEvents(entries).filter((e) => e.type !== 'text_delta');
    expect(streamed.map((e) => e.id)).toEqual(session?.events.map((e) => e.id));
    expect(streamEvents(entries).some((e) => e.type === 'text_delta')).toBe(true);
    // Stream ids are ordered: a reader resumes after any of them.
    const middle = entries[3].id;
    const rest: RunStreamEntry[] = [];
    for await (const entry of queue.follow(runId, middle)) rest.push(entry);
    expect(rest.map((e) => e.id)).toEqual(entries.slice(4).map((e) => e.id));
    await worker.close(1000);
    await queue.close();
  });

  for (const [idempotent, redacted] of [
    [false, false],
    [true, false],
    [true, true],
  ]) {
    it(`a run handed back mid-tool is continued by another worker (${idempotent ? (redacted ? 'idempotent, but recorded redacted: reported as interrupted' : 'idempotent: runs again') : 'reported as interrupted'})`, async () => {
      await (await connect()).flushall();
      const store = new InMemorySessionStore();
      let executions = 0;
      let release: () => void = () => undefined;
      const started = new Promise<void>((resolve) => {
        release = resolve;
      });
      const charge = defineTool({
        name: 'charge',
        description: 'charges a card',
        parameters: { type: 'object', properties: { card: { type: 'string' } }, required: ['card'] },
        idempotent,
        execute: async (_args, { signal }) => {
          executions++;
          if (executions === 1) {
            release();
            // The first worker never finishes this call: it is stopped while the call runs.
            await new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason)),
            );
          }
          return 'charged';
        },
      });
      // Recorded redacted, the call's arguments as made lived only in the worker that was stopped.
      const agent = createAgent({
        name: 'cashier',
        provider: new AutoModel(),
        tools: [charge],
        ...(redacted ? { redactCalls: () => '[REDACTED]' } : {}),
      });
      const lease = () => ({ agent, store, release: () => undefined });
      const first = new RunWorker({ connection: await connect(), agents: lease, lockDurationMs: 2000 });
      await first.start();
      const queue = new RunQueue(await connect());
      const { runId, sessionId } = await queue.enqueue({ agent: 'cashier', input: 'charge me' });
      await started;
      expect(await first.close(0)).toEqual({ finished: 0, handedBack: 1 });
      const second = new RunWorker({ connection: await connect(), agents: lease, lockDurationMs: 2000 });
      await second.start();
      const entries = await collect(queue, runId);
      expect(entries.at(-1)?.end).toMatchObject({ status: 'complete', sessionId });
      const session = (await store.get(sessionId))!;
      const results = session.events.filter((e) => e.type === 'tool_result');
      expect(results).toHaveLength(1);
      if (idempotent && !redacted) {
        expect(executions).toBe(2);
        expect(results[0]).toMatchObject({ content: 'charged' });
      } else {
        expect(executions).toBe(1);
        expect(results[0]).toMatchObject({ content: INTERRUPTED_RESULT });
      }
      // One run_end for the whole run, the session valid, every stored event streamed once.
      expect(session.events.filter((e) => e.type === 'run_end')).toHaveLength(1);
      expect(findPairingProblem(historyFor(session.events, 'cashier', new Set()))).toBeUndefined();
      const streamed = streamEvents(entries)
        .filter((e) => e.type !== 'text_delta')
        .map((e) => e.id);
      expect(streamed).toEqual(session.events.map((e) => e.id));
      expect(new Set(streamed).size).toBe(streamed.length);
      await second.close(1000);
      await queue.close();
    });
  }

  it("a worker's recovery checkpoint is refused by the store once another holder took the session", async () => {
    await (await connect()).flushall();
    const lockMs = 1000;
    // Armed for the second worker: its renewals seem to succeed but renew nothing (so its own check
    // before writing passes), and while it reads the session another holder takes the lapsed lease.
    let intruder: SessionLease | undefined;
    class Raced extends InMemorySessionStore {
      armed = false;
      override async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
        if (this.armed) return { ...lease, expiresAt: Date.now() + ttlMs };
        return super.renewLease(lease, ttlMs);
      }
      override async get(id: string): Promise<Session | undefined> {
        if (this.armed && !intruder) {
          await new Promise((r) => setTimeout(r, lockMs + 300));
          const taken = await this.lease(id, { holder: 'intruder', ttlMs: 60_000 });
          if ('lease' in taken) intruder = taken.lease;
        }
        return super.get(id);
      }
    }
    const store = new Raced();
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const charge = defineTool({
      name: 'charge',
      description: 'charges a card',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, { signal }) => {
        release();
        await new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
        return 'charged';
      },
    });
    const agent = createAgent({ name: 'cashier', provider: new AutoModel(), tools: [charge] });
    const lease = () => ({ agent, store, release: () => undefined });
    const first = new RunWorker({ connection: await connect(), agents: lease, lockDurationMs: lockMs });
    await first.start();
    const queue = new RunQueue(await connect());
    const { runId, sessionId } = await queue.enqueue({ agent: 'cashier', input: 'charge me' });
    await started;
    expect(await first.close(0)).toEqual({ finished: 0, handedBack: 1 });
    const before = (await store.get(sessionId))!;
    expect(before.checkpoint).toBeUndefined();
    store.armed = true;
    const lines: string[] = [];
    const second = new RunWorker({
      connection: await connect(),
      agents: lease,
      lockDurationMs: lockMs,
      log: (line) => lines.push(line),
    });
    await second.start();
    for (let i = 0; i < 200 && !lines.some((l) => l.includes('failed on try')); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(intruder).toBeDefined();
    expect(lines.find((l) => l.includes('failed on try'))).toContain(
      `run ${runId} stopped writing to its session: lost the lease on session ${sessionId}: intruder took it after it expired`,
    );
    // The session is as the first worker left it: no checkpoint put back under the new holder.
    const after = (await store.get(sessionId))!;
    expect(after.checkpoint).toBeUndefined();
    expect(after.events.map((e) => e.id)).toEqual(before.events.map((e) => e.id));
    await second.close(0);
    await store.releaseLease(intruder!);
    await queue.close();
  });

  it('a worker given a run that another worker is running waits for the session, then reports it without running it again', async () => {
    await (await connect()).flushall();
    const store = new InMemorySessionStore();
    let executions = 0;
    let finishTool: () => void = () => undefined;
    const toolFinished = new Promise<void>((resolve) => {
      finishTool = resolve;
    });
    let toolStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      toolStarted = resolve;
    });
    const stamp = defineTool({
      name: 'stamp',
      description: 'stamps',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        executions++;
        toolStarted();
        await toolFinished;
        return 'stamped';
      },
    });
    const agent = createAgent({ name: 'clerk', provider: new AutoModel(), tools: [stamp] });
    const queue = new RunQueue(await connect());
    const { runId, sessionId } = await queue.enqueue({ agent: 'clerk', input: 'stamp it' });
    // The "first worker": the same run (same invocation id, same session) already running.
    const first = new Runner({ agent, store }).run({ sessionId, invocationId: runId, input: 'stamp it' });
    await started;
    const worker = new RunWorker({
      connection: await connect(),
      agents: () => ({ agent, store, release: () => undefined }),
    });
    await worker.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    finishTool();
    await first.invocation;
    const entries = await collect(queue, runId);
    expect(entries.at(-1)?.end).toMatchObject({ status: 'complete', sessionId });
    const session = (await store.get(sessionId))!;
    expect(executions).toBe(1);
    expect(session.events.filter((e) => e.type === 'run_end')).toHaveLength(1);
    expect(streamEvents(entries).map((e) => e.id)).toEqual(session.events.map((e) => e.id));
    await worker.close(1000);
    await queue.close();
  });

  it('a store write that fails mid-run fails the try, not the run: the next try continues from the session, with no gap', async () => {
    await (await connect()).flushall();
    // A database that is away for one write: the one holding the tool's result.
    let failures = 0;
    class FlakyStore extends InMemorySessionStore {
      override async append(id: string, events: readonly AgentEvent[]): Promise<void> {
        if (failures === 0 && events.some((e) => e.type === 'tool_result')) {
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
      parameters: { type: 'object', properties: {} },
      execute: () => 'stamped',
    });
    const agent = createAgent({ name: 'clerk', provider: new AutoModel(), tools: [stamp] });
    const lines: string[] = [];
    const worker = new RunWorker({
      connection: await connect(),
      agents: () => ({ agent, store, release: () => undefined }),
      log: (line) => lines.push(line),
    });
    await worker.start();
    const queue = new RunQueue(await connect(), { backoff: { type: 'fixed', delayMs: 10 } });
    try {
      const { runId, sessionId } = await queue.enqueue({ agent: 'clerk', input: 'stamp it' });
      const entries = await collect(queue, runId);
      expect(failures).toBe(1);
      expect(lines.join('\n')).toContain(
        `run ${runId} failed on try 1 of 3: run ${runId} stopped writing to its session: connection refused; it is tried again`,
      );
      expect(entries.at(-1)?.end).toMatchObject({ status: 'complete', sessionId });
      const session = (await store.get(sessionId))!;
      // Nothing of the failed try after its failed write: no error, no end of its own.
      expect(session.events.filter((e) => e.type === 'error')).toHaveLength(0);
      expect(session.events.filter((e) => e.type === 'run_end')).toHaveLength(1);
      expect(
        session.events.filter((e) => e.type === 'tool_result').map((e) => (e as { content: string }).content),
      ).toEqual([INTERRUPTED_RESULT]);
      expect(findPairingProblem(historyFor(session.events, 'clerk', new Set()))).toBeUndefined();
      const streamed = streamEvents(entries)
        .filter((e) => e.type !== 'text_delta')
        .map((e) => e.id);
      expect(streamed).toEqual(session.events.map((e) => e.id));
    } finally {
      await worker.close(1000);
      await queue.close();
    }
  });

  it('a follower of a run Redis lost (restarted empty, flushed) is told so, not kept waiting', async () => {
    await (await connect()).flushall();
    const queue = new RunQueue(await connect());
    try {
      const { runId, sessionId } = await queue.enqueue({ agent: 'clerk', input: 'nobody runs this' });
      const following = collect(queue, runId);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await (await connect()).flushall();
      const entries = await following;
      expect(entries).toHaveLength(1);
      expect(entries[0].end).toMatchObject({
        status: 'error',
        sessionId,
        code: 'INTERNAL_ERROR',
        message: expect.stringContaining(`the queue no longer has run ${runId}`),
      });
    } finally {
      await queue.close();
    }
  });

  it("a session's runs go in the order they were queued, even when a later one reaches a free worker first", async () => {
    await (await connect()).flushall();
    const store = new InMemorySessionStore();
    const agent = createAgent({ name: 'clerk', provider: new AutoModel() });
    // The first worker to take a run is held up before it can take the session.
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let heldUp: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      heldUp = resolve;
    });
    const lease = store.lease.bind(store);
    let leases = 0;
    store.lease = async (id, request) => {
      if (leases++ === 0) {
        heldUp();
        await opened;
      }
      return lease(id, request);
    };
    const workers = () => ({ agent, store, release: () => undefined });
    const first = new RunWorker({ connection: await connect(), agents: workers });
    const second = new RunWorker({ connection: await connect(), agents: workers });
    const queue = new RunQueue(await connect());
    try {
      await first.start();
      const one = await queue.enqueue({ agent: 'clerk', sessionId: 'in-turn', input: 'first message' });
      await reached;
      await second.start();
      const two = await queue.enqueue({ agent: 'clerk', sessionId: 'in-turn', input: 'second message' });
      // The second worker is free and has the second run; it must not run it before the first.
      await new Promise((resolve) => setTimeout(resolve, 600));
      open();
      for (const run of [one, two])
        expect((await collect(queue, run.runId)).at(-1)?.end).toMatchObject({ status: 'complete' });
      const users = (await store.get('in-turn'))!.events.flatMap((e) =>
        e.type === 'message' && e.message.role === 'user' ? [e.message.content] : [],
      );
      expect(users).toEqual(['first message', 'second message']);
    } finally {
      open();
      await first.close(1000);
      await second.close(1000);
      await queue.close();
    }
  });

  it('reports queue depth and connected workers', async () => {
    await (await connect()).flushall();
    const queue = new RunQueue(await connect());
    expect(await queue.depth()).toMatchObject({ waiting: 0, active: 0, workers: 0 });
    await queue.enqueue({ agent: 'nobody', input: 'hi' });
    expect((await queue.depth()).waiting).toBe(1);
    await queue.close();
  });
});
