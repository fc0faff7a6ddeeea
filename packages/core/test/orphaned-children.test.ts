import { describe, expect, it } from 'vitest';
import { type AgentEvent, agentTool, createAgent, InMemorySessionStore, Runner } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { approvalRefund } from './support/tools.js';

type Turn = Parameters<typeof scriptedModel>[0][number];

// A boss that asks its clerk (an agent tool), whose refund waits for approval: the boss's run
// pauses on the clerk's call r1, made in a child session through the boss's call c1.
async function pausedBoss(ran: string[], clerkAfter: Turn[] = [{ text: 'refund done' }]) {
  const store = new InMemorySessionStore();
  const clerk = createAgent({
    name: 'clerk',
    provider: scriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
      ...clerkAfter,
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
  const [child] = await store.list({ parentId: 'p' });
  expect(child).toMatchObject({ paused: true });
  return { store, childId: child!.id, boss };
}

describe('a child session its parent can no longer resume', () => {
  it('is ended when the parent, resumed without its agent tool, goes on without it', async () => {
    for (const decision of [
      { callId: 'r1', approve: true },
      { callId: 'r1', approve: false, reason: 'no' },
    ]) {
      const ran: string[] = [];
      const { store, childId } = await pausedBoss(ran);
      // The boss as it is after its YAML lost `{ agent: clerk }`.
      const boss = createAgent({ name: 'boss', provider: scriptedModel([{ text: 'went on alone' }]) });
      const events: AgentEvent[] = [];
      const result = await new Runner({ agent: boss, store }).resume({
        sessionId: 'p',
        decisions: [decision],
        onEvent: (e) => events.push(e),
      }).invocation;
      expect(result).toMatchObject({ status: 'complete', output: 'went on alone' });
      // The model is told why its call did not run.
      expect(events.find((e) => e.type === 'tool_result' && e.callId === 'c1')).toMatchObject({
        isError: true,
        content: expect.stringContaining('Tool "clerk" is no longer among the tools of agent boss'),
      });
      expect(ran).toEqual([]);
      // The child is ended, saying why, and whoever watched the resume was told.
      const child = await store.get(childId);
      expect(child?.checkpoint).toBeUndefined();
      expect((await store.list({ parentId: 'p' }))[0]).toMatchObject({ paused: false });
      const [error, end] = child!.events.slice(-2);
      expect(error).toMatchObject({
        type: 'error',
        code: 'ABORTED',
        message: expect.stringContaining('cancelled: session p went on without this session: its call c1'),
      });
      expect(end).toMatchObject({ type: 'run_end', status: 'error' });
      expect(events.filter((e) => e.type === 'error')).toEqual([error]);
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', branch: 'boss' });
      // The parent is not paused; a decision for the child's call finds nothing to decide.
      await expect(
        new Runner({ agent: boss, store }).resume({ sessionId: 'p', decisions: [decision] }).invocation,
      ).rejects.toThrow('session p is not paused');
    }
  });

  it('with the sessions beneath it, when agent tools were nested', async () => {
    const ran: string[] = [];
    const store = new InMemorySessionStore();
    const auditor = createAgent({
      name: 'auditor',
      provider: scriptedModel([{ toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] }]),
      tools: [approvalRefund(ran)],
    });
    const clerk = createAgent({
      name: 'clerk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'auditor', arguments: { request: 'check' }, id: 'a1' }] },
      ]),
      tools: [agentTool(auditor)],
    });
    const boss = createAgent({
      name: 'boss',
      provider: scriptedModel([
        { toolCalls: [{ name: 'clerk', arguments: { request: 'sort it' }, id: 'c1' }] },
      ]),
      tools: [agentTool(clerk)],
    });
    const paused = await new Runner({ agent: boss, store }).run({ input: 'go', sessionId: 'p' }).invocation;
    expect(paused.status).toBe('paused');
    const [clerkSession] = await store.list({ parentId: 'p' });
    const [auditorSession] = await store.list({ parentId: clerkSession!.id });
    expect(auditorSession).toMatchObject({ paused: true });
    const alone = createAgent({ name: 'boss', provider: scriptedModel([{ text: 'went on alone' }]) });
    const events: AgentEvent[] = [];
    await new Runner({ agent: alone, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
      onEvent: (e) => events.push(e),
    }).invocation;
    expect(ran).toEqual([]);
    for (const id of [clerkSession!.id, auditorSession!.id]) {
      const ended = await store.get(id);
      expect(ended?.checkpoint, id).toBeUndefined();
      expect(ended!.events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
    }
    expect((await store.get(auditorSession!.id))!.events.at(-2)).toMatchObject({
      type: 'error',
      message: expect.stringContaining(
        `cancelled: session ${clerkSession!.id}, which was waiting on this session, was ended`,
      ),
    });
    expect(events.filter((e) => e.type === 'error')).toHaveLength(2);
  });

  it('is ended when the parent resume fails before reaching it (nothing could resume it after)', async () => {
    const ran: string[] = [];
    const { store, childId, boss } = await pausedBoss(ran);
    const controller = new AbortController();
    const outcome = await new Runner({ agent: boss, store })
      .resume({
        sessionId: 'p',
        decisions: [{ callId: 'r1', approve: true }],
        signal: controller.signal,
        // Cancelled as it starts, before any call runs (a Ctrl-C at that moment).
        onEvent: (e) => {
          if (e.type === 'run_start') controller.abort();
        },
      })
      .invocation.catch((e: unknown) => e);
    expect(outcome).toMatchObject({ code: 'ABORTED' });
    const child = await store.get(childId);
    expect(child?.checkpoint).toBeUndefined();
    expect(child!.events.at(-2)).toMatchObject({
      type: 'error',
      message: expect.stringContaining('cancelled: the resume of session p ended in an error (ABORTED'),
    });
    expect(ran).toEqual([]);
  });

  it('is kept while the parent still waits on it', async () => {
    const ran: string[] = [];
    // After its first refund, the clerk asks for a second one: its session pauses again.
    const { store, childId, boss } = await pausedBoss(ran, [
      { toolCalls: [{ name: 'refund', arguments: { order: 'A2' }, id: 'r2' }] },
      { text: 'both refunded' },
    ]);
    const again = await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(again.pending).toMatchObject([{ call: { id: 'r2' }, via: { callId: 'c1' } }]);
    expect(ran).toEqual(['A1']);
    const child = await store.get(childId);
    expect(child?.checkpoint).toBeDefined();
    expect(child!.events.filter((e) => e.type === 'error')).toEqual([]);
    const done = await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r2', approve: true }],
    }).invocation;
    expect(done).toMatchObject({ status: 'complete', output: 'all sorted' });
    expect(ran).toEqual(['A1', 'A2']);
  });
});
