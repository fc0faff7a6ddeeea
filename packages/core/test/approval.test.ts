import { describe, expect, it } from 'vitest';
import { type AgentEvent, createAgent, defineTool, type RunCheckpoint, UsageError } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { add } from './support/tools.js';

function refundTool(executed: string[]) {
  return defineTool<{ order: string }>({
    name: 'refund',
    description: 'Refunds an order',
    parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    needsApproval: true,
    execute: ({ order }) => {
      executed.push(order);
      return `refunded ${order}`;
    },
  });
}

const script = () =>
  scriptedModel([
    {
      toolCalls: [
        { name: 'refund', arguments: { order: 'A1' }, id: 'r1' },
        { name: 'add', arguments: { a: 1, b: 2 }, id: 'a1' },
      ],
      usage: { inputTokens: 10, outputTokens: 5 },
    },
    { text: 'finished', usage: { inputTokens: 20, outputTokens: 5 } },
  ]);

describe('tool approval', () => {
  it('pauses with the pending call listed; the other calls still run', async () => {
    const executed: string[] = [];
    const agent = createAgent({ name: 'desk', provider: script(), tools: [refundTool(executed), add] });
    const events: AgentEvent[] = [];
    const run = agent.run('refund A1');
    for await (const e of run) events.push(e);
    const paused = await run;
    expect(paused.status).toBe('paused');
    expect(paused.pending).toEqual([
      {
        call: { id: 'r1', name: 'refund', arguments: { order: 'A1' } },
        agent: 'desk',
        reason: 'refund requires approval',
        kind: 'approval',
        branch: 'desk',
      },
    ]);
    expect(executed).toEqual([]);
    expect(paused.toolCalls.map((c) => c.name)).toEqual(['add']);
    expect(events.find((e) => e.type === 'approval_required')).toBeDefined();
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
  });

  it('resumes from a JSON checkpoint after approval, usage carried over', async () => {
    const executed: string[] = [];
    const model = script();
    const agent = createAgent({ name: 'desk', provider: model, tools: [refundTool(executed), add] });
    const paused = await agent.run('refund A1');
    const checkpoint = JSON.parse(JSON.stringify(paused.checkpoint)) as RunCheckpoint;
    // A new agent object stands for a new process.
    const again = createAgent({ name: 'desk', provider: model, tools: [refundTool(executed), add] });
    const done = await again.resume(checkpoint, [{ callId: 'r1', approve: true }]);
    expect(done.status).toBe('complete');
    expect(done.output).toBe('finished');
    expect(executed).toEqual(['A1']);
    expect(done.usage).toMatchObject({ inputTokens: 30, outputTokens: 10, iterations: 2 });
    expect(done.toolCalls.map((c) => c.name).sort()).toEqual(['add', 'refund']);
    const roles = model.requests[1].messages.map((m) => `${m.role}${m.toolCallId ? `:${m.toolCallId}` : ''}`);
    expect(roles).toEqual(['user', 'assistant', 'tool:a1', 'tool:r1']);
  });

  it('a denied call becomes a result the model sees, with the reason', async () => {
    const executed: string[] = [];
    const model = script();
    const agent = createAgent({ name: 'desk', provider: model, tools: [refundTool(executed), add] });
    const paused = await agent.run('refund A1');
    const done = await agent.resume(paused.checkpoint!, [
      { callId: 'r1', approve: false, reason: 'over the limit' },
    ]);
    expect(executed).toEqual([]);
    expect(done.output).toBe('finished');
    const denied = model.requests[1].messages.find((m) => m.toolCallId === 'r1');
    expect(denied).toMatchObject({ isError: true, content: 'The call was not run: over the limit.' });
  });

  it('asks through onApproval instead of pausing when given', async () => {
    const executed: string[] = [];
    const asked: string[] = [];
    const agent = createAgent({ name: 'desk', provider: script(), tools: [refundTool(executed), add] });
    const result = await agent.run('refund A1', {
      onApproval: async (pending) => {
        asked.push(pending.call.name);
        return true;
      },
    });
    expect(result.status).toBe('complete');
    expect(asked).toEqual(['refund']);
    expect(executed).toEqual(['A1']);
  });

  it('an approval policy can deny or allow without asking', async () => {
    const executed: string[] = [];
    const agent = createAgent({
      name: 'desk',
      provider: script(),
      tools: [refundTool(executed), add],
      approvalPolicy: (call) => (call.name === 'refund' ? 'deny' : undefined),
    });
    const result = await agent.run('refund A1');
    expect(result.status).toBe('complete');
    expect(result.toolCalls.find((c) => c.name === 'refund')).toMatchObject({ isError: true });
    expect(executed).toEqual([]);
  });

  it('rejects a resume with an unknown call id or for another agent', async () => {
    const agent = createAgent({ name: 'desk', provider: script(), tools: [refundTool([]), add] });
    const paused = await agent.run('refund A1');
    expect(() => agent.resume(paused.checkpoint!, [{ callId: 'nope', approve: true }])).toThrow(UsageError);
    expect(() => agent.resume(paused.checkpoint!, [{ callId: 'nope', approve: true }])).toThrow(
      /pending: r1/,
    );
    const other = createAgent({ name: 'other', provider: script() });
    expect(() => other.resume(paused.checkpoint!, [])).toThrow(/belongs to agent desk/);
  });
});
