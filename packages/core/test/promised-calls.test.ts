import { describe, expect, it } from 'vitest';
import {
  agentTool,
  assertSessionExport,
  createAgent,
  DamagedSessionError,
  exportSessionTree,
  InMemorySessionStore,
  InvalidExportError,
  type Middleware,
  Runner,
  type Session,
  sameJson,
} from '../src/index.js';
import { isRedactedCopy } from '../src/loop/redacted-copy.js';
import { scriptedModel } from '../src/testing/index.js';
import { approvalRefund } from './support/tools.js';

// A store whose sessions were changed outside agentctl: `tamper` rewrites a session as it is read.
class TamperedStore extends InMemorySessionStore {
  tamper: ((session: Session) => void) | undefined;
  override async get(id: string): Promise<Session | undefined> {
    const stored = await super.get(id);
    // Through JSON, as a file or database keeps it: no object is shared between two events.
    const session = stored && (JSON.parse(JSON.stringify(stored)) as Session);
    if (session && this.tamper) this.tamper(session);
    return session;
  }
}

// A clerk whose refund needs approval: the run pauses on refund({ order: 'A1' }), call r1.
async function pausedClerk(ran: string[]) {
  const store = new TamperedStore();
  const agent = createAgent({
    name: 'clerk',
    provider: scriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
      { text: 'refund done' },
    ]),
    tools: [approvalRefund(ran)],
  });
  const paused = await new Runner({ agent, store }).run({ input: 'refund', sessionId: 's' }).invocation;
  expect(paused.status).toBe('paused');
  return { store, agent };
}

function modelCallOf(session: Session) {
  for (const event of session.events) {
    if (event.type === 'message' && event.message.toolCalls) return event.message.toolCalls[0];
  }
  throw new Error('no model call');
}

describe('a resume runs only the calls a person was shown', () => {
  it('runs the approved call when the session is as agentctl wrote it', async () => {
    const ran: string[] = [];
    const { store, agent } = await pausedClerk(ran);
    const done = await new Runner({ agent, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(done.status).toBe('complete');
    expect(ran).toEqual(['A1']);
  });

  it("refuses when the model's call was changed under the checkpoint: nothing runs, nothing is written", async () => {
    const ran: string[] = [];
    const { store, agent } = await pausedClerk(ran);
    const before = await store.get('s');
    store.tamper = (session) => {
      modelCallOf(session).arguments = { order: 'EVERYTHING' };
    };
    const resumed = new Runner({ agent, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    });
    const error = await resumed.invocation.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DamagedSessionError);
    expect((error as Error).message).toBe(
      'session s cannot be resumed: the call r1 waiting for a decision is refund({"order":"A1"}), but the model\'s call r1 is refund({"order":"EVERYTHING"}) (the session was changed outside agentctl)',
    );
    expect(ran).toEqual([]);
    store.tamper = undefined;
    expect(await store.get('s')).toEqual(before);
  });

  it('refuses when the checkpoint shows another call than the approval_required event', async () => {
    const ran: string[] = [];
    const { store, agent } = await pausedClerk(ran);
    store.tamper = (session) => {
      const shown = session.events.find((e) => e.type === 'approval_required');
      if (shown?.type === 'approval_required')
        shown.pending[0].call = { id: 'r1', name: 'refund', arguments: { order: 'B2' } };
    };
    const resumed = new Runner({ agent, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    });
    await expect(resumed.invocation).rejects.toThrow(
      /approval_required event shows refund\(\{"order":"B2"\}\)/,
    );
    expect(ran).toEqual([]);
  });

  it("refuses when a child session waits on another call than its caller's checkpoint shows", async () => {
    const ran: string[] = [];
    const store = new TamperedStore();
    const clerk = createAgent({
      name: 'clerk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
        { text: 'refund done' },
      ]),
      tools: [approvalRefund(ran)],
    });
    const boss = createAgent({
      name: 'boss',
      provider: scriptedModel([
        { toolCalls: [{ name: 'clerk', arguments: { request: 'refund A1' }, id: 'c1' }] },
        { text: 'all sorted' },
      ]),
      tools: [agentTool(clerk)],
    });
    const paused = await new Runner({ agent: boss, store }).run({ input: 'sort it', sessionId: 'p' })
      .invocation;
    expect(paused.pending).toMatchObject([{ call: { id: 'r1' }, via: { callId: 'c1' } }]);
    // The child's own parts agree with each other, and disagree with what the caller shows.
    store.tamper = (session) => {
      if (session.id === 'p') return;
      const wanted = { id: 'r1', name: 'refund', arguments: { order: 'ALL' } };
      modelCallOf(session).arguments = wanted.arguments;
      const shown = session.events.find((e) => e.type === 'approval_required');
      if (shown?.type === 'approval_required') shown.pending[0].call = wanted;
      (session.checkpoint as { pending: { call: unknown }[] }).pending[0].call = wanted;
    };
    const resumed = new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    });
    await expect(resumed.invocation).rejects.toThrow(
      'the call r1 waiting for a decision is refund({"order":"A1"}), but the child session that would run it waits on refund({"order":"ALL"})',
    );
    expect(ran).toEqual([]);
  });

  it('sessions import refuses an export whose paused session shows one call and would run another', async () => {
    const ran: string[] = [];
    const { store } = await pausedClerk(ran);
    const exported = await exportSessionTree(store, 's', (id) => new Error(id));
    expect(() => assertSessionExport(structuredClone(exported))).not.toThrow();
    const hostile = JSON.parse(JSON.stringify(exported)) as typeof exported;
    modelCallOf(hostile.session).arguments = { order: 'EVERYTHING' };
    expect(() => assertSessionExport(hostile)).toThrow(InvalidExportError);
    expect(() => assertSessionExport(hostile)).toThrow(
      'export: session s: the call r1 waiting for a decision is refund({"order":"A1"}), but the model\'s call r1 is refund({"order":"EVERYTHING"})',
    );
    // A checkpoint that is no runner's pause is the store's to keep as it is.
    const opaque = structuredClone(exported);
    (opaque.session as { checkpoint: unknown }).checkpoint = { version: 1, pending: ['x'] };
    expect(() => assertSessionExport(opaque)).not.toThrow();
  });
});

describe('a resume of a call the session records redacted', () => {
  // Order numbers hidden as `#` by a middleware that declares no marker: only the agent knows its rule.
  const hideOrders = Object.assign(async (_action: unknown, next: () => Promise<unknown>) => next(), {
    redactsCalls: (text: string) => text.replace(/A\d/g, '#'),
  }) as unknown as Middleware;

  async function pausedRedacted(ran: string[]) {
    const store = new TamperedStore();
    const agent = createAgent({
      name: 'clerk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
        { text: 'refund done' },
      ]),
      tools: [approvalRefund(ran)],
      middleware: [hideOrders],
    });
    const paused = await new Runner({ agent, store }).run({ input: 'refund', sessionId: 's' }).invocation;
    expect(paused.status).toBe('paused');
    expect(modelCallOf((await store.get('s')) as Session)).toMatchObject({
      arguments: { order: '#' },
      argumentsRedacted: true,
    });
    return { store, agent };
  }

  it('runs the call as made when the agent records it as the session shows', async () => {
    const ran: string[] = [];
    const { store, agent } = await pausedRedacted(ran);
    const done = await new Runner({ agent, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(done.status).toBe('complete');
    expect(ran).toEqual(['A1']);
  });

  it('refuses a call swapped under the redacted record, in the checkpoint and the event alike', async () => {
    const ran: string[] = [];
    const { store, agent } = await pausedRedacted(ran);
    const swapped = { id: 'r1', name: 'refund', arguments: { order: 'A2 and every other' } };
    store.tamper = (session) => {
      const shown = session.events.find((e) => e.type === 'approval_required');
      if (shown?.type === 'approval_required') shown.pending[0].call = swapped;
      (session.checkpoint as { pending: Array<{ call: unknown }> }).pending[0].call = swapped;
    };
    const resumed = new Runner({ agent, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    });
    await expect(resumed.invocation).rejects.toThrow(DamagedSessionError);
    expect(ran).toEqual([]);
  });

  it('holds a copy recorded under other rules to all it shows', () => {
    const markers = ['***', '[REDACTED]'];
    // A rule dropped or a secret rotated since: what the copy shows is the call's own text.
    expect(isRedactedCopy({ t: 'mail [REDACTED] re ***' }, { t: 'mail a@b.co re tok-1' }, markers)).toBe(
      true,
    );
    expect(isRedactedCopy({ '***': ['x [REDACTED]'] }, { 'tok-1': ['x 555-12-1234'] }, markers)).toBe(true);
    // What it shows changed, a number changed, a marker standing for nothing, no marker at all.
    expect(isRedactedCopy({ t: 'mail [REDACTED] re ***' }, { t: 'post a@b.co re tok-1' }, markers)).toBe(
      false,
    );
    expect(isRedactedCopy({ t: '***', n: 1 }, { t: 'tok-1', n: 2 }, markers)).toBe(false);
    expect(isRedactedCopy({ t: 'a *** b' }, { t: 'a  b' }, markers)).toBe(false);
    expect(isRedactedCopy({ t: 'keep' }, { t: 'wipe' }, markers)).toBe(false);
  });
});

describe('sameJson', () => {
  it('compares JSON values with object keys in any order', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });
});
