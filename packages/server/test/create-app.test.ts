import { type Agent, createAgent, InMemorySessionStore, offline } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import type { AgentSource } from '../src/agent-source.js';
import { createApp } from '../src/create-app.js';
import { RunTracker } from '../src/run-tracker.js';

// The app from code, driven with hono's app.request: the same routes `agentctl serve` mounts.
function sourceOf(agents: Agent[]): AgentSource & { released: number } {
  const store = new InMemorySessionStore();
  const source = {
    released: 0,
    list: () => agents.map((a) => ({ name: a.name, description: a.description })),
    lease(name: string) {
      const agent = agents.find((a) => a.name === name);
      return agent && { agent, store, release: () => void source.released++ };
    },
    stores: async () => [store],
  };
  return source;
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('createApp', () => {
  it('runs an agent and releases its lease when the run ends', async () => {
    const source = sourceOf([createAgent({ name: 'echo', provider: offline('echo') })]);
    const { app, tracker } = createApp({ source });
    const response = await app.request('/agents/echo/runs', json({ input: 'hi', stream: false }));
    expect(await response.json()).toMatchObject({ status: 'complete', output: 'hi' });
    expect(source.released).toBe(1);
    expect(tracker.size).toBe(0);
  });

  it('answers an unknown route, a missing token and an internal failure as JSON errors', async () => {
    const source = sourceOf([createAgent({ name: 'echo', provider: offline('echo') })]);
    source.stores = async () => {
      throw new Error('disk on fire at /secret/path');
    };
    const seen: string[] = [];
    const { app } = createApp({ source, tokens: ['t0k'], errorLog: (line) => seen.push(line) });
    expect((await app.request('/nowhere', { headers: { authorization: 'Bearer t0k' } })).status).toBe(404);
    expect((await app.request('/sessions')).status).toBe(401);
    const failed = await app.request('/sessions', { headers: { authorization: 'Bearer t0k' } });
    expect(failed.status).toBe(500);
    const { error } = (await failed.json()) as { error: { code: string; message: string } };
    // The client gets a ref to quote; the log has the text with that ref.
    expect(error.code).toBe('internal');
    expect(error.message).toMatch(/^internal error \(ref [0-9a-f]{12}\)$/);
    expect(error.message).not.toContain('/secret/path');
    const ref = /ref ([0-9a-f]+)/.exec(error.message)![1];
    expect(seen).toEqual([`agentctl serve: internal error (ref ${ref}): disk on fire at /secret/path\n`]);
  });
});

describe('RunTracker', () => {
  it('refuses a run beyond the cap (429 with Retry-After) and a second run of a session (409)', () => {
    const tracker = new RunTracker(2);
    const a = tracker.begin('s1');
    expect(() => tracker.begin('s1')).toThrow(expect.objectContaining({ status: 409, code: 'session_busy' }));
    tracker.begin('s2');
    expect(() => tracker.begin('s3')).toThrow(
      expect.objectContaining({ status: 429, headers: { 'retry-after': '1' } }),
    );
    a.end();
    a.end(); // a second end is harmless
    expect(tracker.size).toBe(1);
    expect(() => tracker.begin('s1')).not.toThrow();
  });

  it('drains: waits for runs within the grace period, then aborts the rest and refuses new ones', async () => {
    const tracker = new RunTracker(10);
    const quick = tracker.begin('quick');
    const stuck = tracker.begin('stuck');
    stuck.signal.addEventListener('abort', () => stuck.end());
    setTimeout(() => quick.end(), 10);
    const outcome = await tracker.drain(100);
    expect(outcome).toEqual({ finished: 1, cancelled: 1, unended: 0 });
    expect(stuck.signal.reason).toMatchObject({ code: 'ABORTED' });
    expect(() => tracker.begin('late')).toThrow(expect.objectContaining({ status: 503 }));
  });

  it('drains: a cancelled run that cannot end (its store does not answer) does not hold the drain', async () => {
    const tracker = new RunTracker(10);
    const frozen = tracker.begin('frozen');
    // Cancelled, it never ends: its last write waits on a store that does not answer.
    const outcome = await tracker.drain(0);
    expect(outcome).toEqual({ finished: 0, cancelled: 1, unended: 1 });
    expect(frozen.signal.aborted).toBe(true);
    frozen.end();
  });
});
