import { createAgent, InMemorySessionStore, offline } from '@agentctl/core';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/create-app.js';
import type { QueuedRuns } from '../src/queued-runs.js';

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function appWith(queue?: QueuedRuns, maxFollowers?: number, publicUrl?: string) {
  const store = new InMemorySessionStore();
  const agent = createAgent({ name: 'echo', provider: offline('echo') });
  const source = {
    list: () => [{ name: 'echo' }],
    lease: (name: string) => (name === 'echo' ? { agent, store, release: () => undefined } : undefined),
    stores: async () => [store],
  };
  return { ...createApp({ source, queue, maxFollowers, publicUrl }), store };
}

describe('queued routes', () => {
  it('without a queue, async runs and run events are refused with a 400 saying what to set', async () => {
    const { app } = appWith();
    const run = await app.request('/agents/echo/runs', json({ input: 'hi', async: true }));
    expect(run.status).toBe(400);
    expect((await run.json()).error).toMatchObject({ code: 'no_queue' });
    expect((await (await app.request('/runs/abc/events')).json()).error.message).toContain(
      'AGENTCTL_QUEUE_URL',
    );
  });

  it('with a queue, checks the agent and session before enqueuing, and reports depth at /health', async () => {
    const enqueued: unknown[] = [];
    const queue: QueuedRuns = {
      enqueue: async (request) => {
        enqueued.push(request);
        return { runId: 'r1', sessionId: request.sessionId ?? 's1' };
      },
      exists: async () => false,
      follow: async function* () {},
      depth: async () => ({ waiting: 2, workers: 1 }),
    };
    const { app, store } = appWith(queue);
    expect((await app.request('/agents/nobody/runs', json({ input: 'hi', async: true }))).status).toBe(404);
    await store.create({ id: 'paused', agent: 'echo' });
    await store.setCheckpoint('paused', { pending: [] });
    const busy = await app.request(
      '/agents/echo/runs',
      json({ input: 'hi', sessionId: 'paused', async: true }),
    );
    expect(busy.status).toBe(409);
    await store.create({ id: 'idle', agent: 'echo' });
    const notPaused = await app.request(
      '/sessions/idle/decisions',
      json({ decisions: [{ callId: 'c', decision: 'approve' }], async: true }),
    );
    expect(notPaused.status).toBe(409);
    expect(enqueued).toEqual([]);
    const ok = await app.request('/agents/echo/runs', json({ input: 'hi', async: true }));
    expect(ok.status).toBe(202);
    expect(ok.headers.get('location')).toBe('/runs/r1/events');
    expect(await ok.json()).toEqual({
      status: 'queued',
      runId: 'r1',
      sessionId: 's1',
      events: '/runs/r1/events',
    });
    expect(enqueued).toEqual([{ agent: 'echo', input: 'hi' }]);
    expect((await app.request('/runs/r9/events')).status).toBe(404);
    expect(await (await app.request('/health')).json()).toEqual({
      status: 'ok',
      queue: { waiting: 2, workers: 1 },
    });
  });

  it('behind a proxy serving it under a path, a queued run’s events address is the public one', async () => {
    const queue: QueuedRuns = {
      enqueue: async () => ({ runId: 'r1', sessionId: 's1' }),
      exists: async () => false,
      follow: async function* () {},
      depth: async () => ({ waiting: 0, workers: 1 }),
    };
    const { app } = appWith(queue, undefined, 'https://example.com/team/');
    const ok = await app.request('/agents/echo/runs', json({ input: 'hi', async: true }));
    expect(ok.status).toBe(202);
    expect(ok.headers.get('location')).toBe('https://example.com/team/runs/r1/events');
    expect((await ok.json()).events).toBe('https://example.com/team/runs/r1/events');
  });

  it('caps the streams of queued runs open at once (429 with Retry-After), and frees a place when one closes', async () => {
    const open: AbortSignal[] = [];
    const queue: QueuedRuns = {
      enqueue: async () => ({ runId: 'r', sessionId: 's' }),
      exists: async () => true,
      // A run that never ends: its follower stays open until the client leaves.
      follow: async function* (_id, _after, signal) {
        open.push(signal);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
      depth: async () => ({ waiting: 0, workers: 1 }),
    };
    const { app } = appWith(queue, 2);
    const first = await app.request('/runs/r1/events');
    const second = await app.request('/runs/r2/events');
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await app.request('/runs/r3/events');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await third.json()).error).toMatchObject({ code: 'too_many_followers' });
    await first.body?.cancel();
    await vi.waitFor(() => expect(open[0]?.aborted).toBe(true));
    const fourth = await app.request('/runs/r4/events');
    expect(fourth.status).toBe(200);
    await Promise.all([second.body?.cancel(), fourth.body?.cancel()]);
  });

  it('/health, open without a token, does not repeat what Redis said: a ref, the text in the log', async () => {
    const failing: QueuedRuns = {
      enqueue: async () => ({ runId: 'r', sessionId: 's' }),
      exists: async () => false,
      follow: async function* () {},
      depth: async () => {
        throw new Error('WRONGPASS invalid username-password pair at redis.internal:6379');
      },
    };
    const store = new InMemorySessionStore();
    const source = { list: () => [], lease: () => undefined, stores: async () => [store] };
    const lines: string[] = [];
    const { app } = createApp({ source, queue: failing, tokens: ['t'], errorLog: (l) => lines.push(l) });
    const health = await app.request('/health');
    expect(health.status).toBe(503);
    const body = await health.json();
    expect(body.queue.error).toMatch(/^the queue failed \(ref [0-9a-f]{12}\)$/);
    const ref = /ref ([0-9a-f]+)/.exec(body.queue.error)![1];
    expect(lines.join('')).toContain(
      `(ref ${ref}): WRONGPASS invalid username-password pair at redis.internal:6379`,
    );
    const exposed = createApp({ source, queue: failing, exposeErrors: true }).app;
    expect((await (await exposed.request('/health')).json()).queue.error).toContain('WRONGPASS');
  });

  it('a follow that fails once the stream has begun ends the stream, logged with a ref, not as a stack', async () => {
    const failing: QueuedRuns = {
      enqueue: async () => ({ runId: 'r', sessionId: 's' }),
      exists: async () => true,
      follow: async function* () {
        yield {
          id: '1-0',
          event: {
            type: 'run_start',
            id: 'e1',
            invocationId: 'i',
            branch: 'a',
            author: 'user',
            time: 0,
            input: 'hi',
          },
        };
        throw new Error('Connection is closed (redis.internal:6379)');
      },
      depth: async () => ({}),
    };
    const store = new InMemorySessionStore();
    const source = { list: () => [], lease: () => undefined, stores: async () => [store] };
    const lines: string[] = [];
    const { app } = createApp({ source, queue: failing, errorLog: (l) => lines.push(l) });
    const stderr: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args) => {
      stderr.push(args);
    });
    try {
      const text = await (await app.request('/runs/r/events')).text();
      expect(text).toContain('event: run_start');
      expect(text).not.toContain('redis.internal');
    } finally {
      spy.mockRestore();
    }
    expect(stderr).toEqual([]);
    expect(lines.join('')).toMatch(
      /stream failed \(ref [0-9a-f]{12}\): Connection is closed \(redis\.internal:6379\)/,
    );
  });
});
