import { describe, expect, it } from 'vitest';
import { type AgentEvent, agentTool, createAgent, InMemorySessionStore, Runner } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { approvalRefund } from './support/tools.js';

// boss -> clerk (agent tool) -> auditor (agent tool of the clerk), whose refund waits for approval.
async function pausedThreeDeep(ran: string[]) {
  const store = new InMemorySessionStore();
  const auditor = createAgent({
    name: 'auditor',
    provider: scriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
      { text: 'audited' },
    ]),
    tools: [approvalRefund(ran)],
  });
  const clerk = createAgent({
    name: 'clerk',
    provider: scriptedModel([
      { toolCalls: [{ name: 'auditor', arguments: { request: 'check' }, id: 'a1' }] },
      { text: 'clerked' },
    ]),
    tools: [agentTool(auditor)],
  });
  const boss = createAgent({
    name: 'boss',
    provider: scriptedModel([
      { toolCalls: [{ name: 'clerk', arguments: { request: 'sort it' }, id: 'c1' }] },
      { text: 'bossed' },
    ]),
    tools: [agentTool(clerk)],
  });
  const paused = await new Runner({ agent: boss, store }).run({ input: 'go', sessionId: 'p' }).invocation;
  return { store, boss, paused };
}

describe('a call waiting two agent tools deep', () => {
  it('is paused on the top agent’s own call, which is what a resume runs again', async () => {
    const { paused } = await pausedThreeDeep([]);
    expect(paused.pending).toEqual([
      expect.objectContaining({
        call: { id: 'r1', name: 'refund', arguments: { order: 'A1' } },
        agent: 'auditor',
        via: { callId: 'c1', agent: 'boss', branch: 'boss' },
      }),
    ]);
  });

  it('runs when approved, through both child sessions, and every session ends', async () => {
    const ran: string[] = [];
    const { store, boss } = await pausedThreeDeep(ran);
    const events: AgentEvent[] = [];
    const result = await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
      onEvent: (e) => events.push(e),
    }).invocation;
    expect(ran).toEqual(['A1']);
    expect(result).toMatchObject({ status: 'complete', output: 'bossed' });
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'c1')).toMatchObject({
      content: 'clerked',
      isError: false,
    });
    expect((await store.list()).map((s) => s.paused)).toEqual([false, false, false]);
  });

  it('is refused when denied, the reason reaching the agent that asked', async () => {
    const ran: string[] = [];
    const { store, boss } = await pausedThreeDeep(ran);
    const events: AgentEvent[] = [];
    await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: false, reason: 'over the limit' }],
      onEvent: (e) => events.push(e),
    }).invocation;
    expect(ran).toEqual([]);
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'r1')).toMatchObject({
      author: 'auditor',
      isError: true,
      content: expect.stringContaining('over the limit'),
    });
    expect((await store.list()).map((s) => s.paused)).toEqual([false, false, false]);
  });

  it('is decided through the top session only: a child resumed or prompted on its own is refused', async () => {
    const ran: string[] = [];
    const { store, boss } = await pausedThreeDeep(ran);
    const [clerkSession] = await store.list({ parentId: 'p' });
    const [auditorSession] = await store.list({ parentId: clerkSession!.id });
    for (const id of [clerkSession!.id, auditorSession!.id]) {
      const direct = new Runner({ agent: boss, store });
      await expect(
        direct.resume({ sessionId: id, decisions: [{ callId: 'r1', approve: true }] }).invocation,
      ).rejects.toThrow(
        `session ${id} is paused inside session p (agent boss), which waits on it through an agent tool: decide r1 by resuming session p`,
      );
      await expect(direct.run({ sessionId: id, input: 'hello' }).invocation).rejects.toThrow(
        `session ${id} is paused inside session p`,
      );
    }
    expect(ran).toEqual([]);
    // Nothing was touched: the top session resumes as it would have.
    const result = await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(result.output).toBe('bossed');
    expect(ran).toEqual(['A1']);
  });

  it('paused by an earlier version (via naming the innermost call) still runs when approved', async () => {
    const ran: string[] = [];
    const { store, boss } = await pausedThreeDeep(ran);
    // What an earlier version wrote: the call the clerk made, which the boss never makes again.
    const stored = (await store.get('p'))!.checkpoint as { pending: Array<Record<string, unknown>> };
    await store.setCheckpoint('p', {
      ...stored,
      pending: stored.pending.map((p) => ({
        ...p,
        via: { callId: 'a1', agent: 'clerk', branch: 'boss.clerk' },
      })),
    });
    const result = await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(ran).toEqual(['A1']);
    expect(result).toMatchObject({ status: 'complete', output: 'bossed' });
    expect((await store.list()).map((s) => s.paused)).toEqual([false, false, false]);
  });
});
