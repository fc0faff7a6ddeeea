import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  agentTool,
  createAgent,
  defineTool,
  findAgent,
  findAgentPath,
  InMemorySessionStore,
  LoopAgent,
  listAgents,
  ParallelAgent,
  Runner,
  SequentialAgent,
  UsageError,
  walkAgents,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { approvalRefund } from './support/tools.js';

async function drain(run: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of run) out.push(e);
  return out;
}

const say = (name: string, text: string, extra: Record<string, unknown> = {}) =>
  createAgent({ name, provider: scriptedModel([{ text }]), ...extra });

describe('the agent tree', () => {
  const tree = () => {
    const billing = say('billing', 'b');
    const tech = say('tech', 't');
    const root = createAgent({ name: 'triage', provider: scriptedModel([]), subAgents: [billing, tech] });
    new Runner({ agent: root });
    return { root, billing, tech };
  };

  it('finds agents, paths and walks depth-first with depth, stoppably', () => {
    const { root, tech } = tree();
    expect(findAgent(root, 'tech')).toBe(tech);
    expect(findAgent(root, 'nope')).toBeUndefined();
    expect(findAgentPath(root, 'tech')?.map((a) => a.name)).toEqual(['tech']);
    expect(findAgentPath(root, 'triage')).toEqual([]);
    const seen: string[] = [];
    walkAgents(root, (a, depth) => {
      seen.push(`${a.name}@${depth}`);
      if (a.name === 'billing') return false;
    });
    expect(seen).toEqual(['triage@0', 'billing@1']);
    expect(listAgents(root).map((a) => a.name)).toEqual(['triage', 'billing', 'tech']);
    expect(tech.parent).toBe(root);
  });

  it('rejects the name user', () => {
    expect(() => createAgent({ name: 'user', provider: scriptedModel([]) })).toThrow(UsageError);
  });
});

describe('transfer', () => {
  it('moves control to a sub-agent, which keeps it for the next message until it transfers back', async () => {
    const triageModel = scriptedModel([
      { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'billing' } }] },
      { text: 'triage here again' },
    ]);
    const billingModel = scriptedModel([
      { text: 'billing: your invoice is fine' },
      { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'triage' } }] },
    ]);
    const billing = createAgent({ name: 'billing', description: 'invoices', provider: billingModel });
    const triage = createAgent({ name: 'triage', provider: triageModel, subAgents: [billing] });
    const runner = new Runner({ agent: triage });
    const first = runner.run({ input: 'my invoice?', sessionId: 's' });
    const events = await drain(first);
    expect((await first.invocation).output).toBe('billing: your invoice is fine');
    expect(events.filter((e) => e.type === 'transfer')).toMatchObject([{ from: 'triage', to: 'billing' }]);
    expect(events.find((e) => e.type === 'text_delta')?.branch).toBe('triage.billing');
    expect(triageModel.requests[0].tools?.find((t) => t.name === 'transfer_to_agent')?.description).toContain(
      'billing: invoices',
    );
    // Billing saw the whole conversation, including the user's question.
    expect(billingModel.requests[0].messages[0]).toMatchObject({ role: 'user', content: 'my invoice?' });
    const second = await runner.run({ input: 'anything else?', sessionId: 's' }).invocation;
    expect(billingModel.requests[1].messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'anything else?',
    });
    expect(second.output).toBe('triage here again');
    triageModel.assertConsumed();
    billingModel.assertConsumed();
  });

  it('rejects disallowed transfers as invalid tool calls', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'root' } }] },
      { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'peer' } }] },
      { text: 'staying' },
    ]);
    const child = createAgent({ name: 'child', provider: model, disallowTransferToParent: true });
    const peer = say('peer', 'peer answer');
    const root = createAgent({
      name: 'root',
      provider: scriptedModel([
        { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'child' } }] },
      ]),
      subAgents: [child, peer],
    });
    const runner = new Runner({ agent: root });
    const run = runner.run({ input: 'go' });
    const events = await drain(run);
    const results = events.filter((e) => e.type === 'tool_result' && e.author === 'child');
    expect(results[0]).toMatchObject({ isError: true, errorCode: 'TOOL_VALIDATION_ERROR' });
    expect(results[1]).toMatchObject({ isError: false, content: 'Transferred to peer.' });
    expect((await run.invocation).output).toBe('peer answer');
  });
});

describe('agent as tool', () => {
  it('runs in a child session linked to the call id, streams tagged events, keeps the parent history clean', async () => {
    const store = new InMemorySessionStore();
    const summarizer = createAgent({
      name: 'summarizer',
      description: 'summarises',
      provider: scriptedModel([{ text: 'short version' }]),
    });
    const parentModel = scriptedModel([
      { toolCalls: [{ name: 'summarizer', arguments: { request: 'summarise this' }, id: 'c1' }] },
      { text: 'done' },
    ]);
    const writer = createAgent({ name: 'writer', provider: parentModel, tools: [agentTool(summarizer)] });
    const run = new Runner({ agent: writer, store }).run({ input: 'write', sessionId: 'parent' });
    const events = await drain(run);
    expect((await run.invocation).output).toBe('done');
    const childText = events.filter((e) => e.type === 'text_delta' && e.author === 'summarizer');
    expect(childText.map((e) => e.branch)).toEqual(['writer.summarizer', 'writer.summarizer']);
    const sessions = await store.list();
    const child = sessions.find((s) => s.parentId === 'parent');
    expect(child).toMatchObject({ parentCallId: 'c1', agent: 'summarizer' });
    const parentSession = await store.get('parent');
    expect(parentSession?.events.some((e) => e.author === 'summarizer')).toBe(false);
    expect(parentModel.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'short version' });
    expect(parentModel.requests[1].messages).toHaveLength(3);
  });

  it("counts an agent tool's model calls in its caller's usage and against the invocation's limits", async () => {
    const boss = () =>
      createAgent({
        name: 'boss',
        provider: scriptedModel([
          {
            toolCalls: [{ name: 'helper', arguments: { request: 'sum it' }, id: 'c1' }],
            usage: { inputTokens: 3, outputTokens: 2 },
          },
          { text: 'done', usage: { inputTokens: 4, outputTokens: 1 } },
        ]),
        tools: [
          agentTool(
            createAgent({
              name: 'helper',
              provider: scriptedModel([{ text: '42', usage: { inputTokens: 5000, outputTokens: 5000 } }]),
            }),
          ),
        ],
      });
    const done = await new Runner({ agent: boss(), store: new InMemorySessionStore() }).run({ input: 'go' })
      .invocation;
    expect(done.status).toBe('complete');
    expect(done.usage).toMatchObject({
      inputTokens: 5007,
      outputTokens: 5003,
      totalTokens: 10010,
      iterations: 3,
    });
    // The child's 10,000 tokens put the invocation over a 6,000-token budget before its second call.
    const over = new Runner({ agent: boss(), store: new InMemorySessionStore() }).run({
      input: 'go',
      limits: { maxTokens: 6000 },
    });
    await expect(over.invocation).rejects.toMatchObject({
      code: 'MAX_TOKENS_EXCEEDED',
      context: { scope: 'invocation', limit: 6000, used: 10005 },
    });
  });

  it("a child waiting for approval pauses its caller; approving the child's call resumes both", async () => {
    const ran: string[] = [];
    const refund = approvalRefund(ran);
    const clerkModel = scriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
      { text: 'refund done' },
    ]);
    const clerk = createAgent({ name: 'clerk', provider: clerkModel, tools: [refund] });
    const bossModel = scriptedModel([
      { toolCalls: [{ name: 'clerk', arguments: { request: 'refund A1' }, id: 'c1' }] },
      { text: 'all sorted' },
    ]);
    const boss = createAgent({ name: 'boss', provider: bossModel, tools: [agentTool(clerk)] });
    const store = new InMemorySessionStore();
    const paused = await new Runner({ agent: boss, store }).run({ input: 'sort it', sessionId: 'p' })
      .invocation;
    expect(paused.status).toBe('paused');
    expect(paused.pending).toMatchObject([
      { call: { id: 'r1', name: 'refund' }, agent: 'clerk', via: { callId: 'c1', agent: 'boss' } },
    ]);
    expect(ran).toEqual([]);
    const done = await new Runner({ agent: boss, store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(done).toMatchObject({ status: 'complete', output: 'all sorted' });
    expect(ran).toEqual(['A1']);
    expect(bossModel.requests[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'c1',
      content: 'refund done',
    });
    const children = await store.list({ parentId: 'p' });
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ parentCallId: 'c1', paused: false });
  });

  it('a failing child is a failed tool result, never an empty success', async () => {
    const broken = createAgent({ name: 'broken', provider: scriptedModel([{ error: 'model down' }]) });
    const parentModel = scriptedModel([
      { toolCalls: [{ name: 'broken', arguments: { request: 'x' } }] },
      { text: 'coped' },
    ]);
    const run = new Runner({
      agent: createAgent({ name: 'boss', provider: parentModel, tools: [agentTool(broken)] }),
    }).run({ input: 'go' });
    const events = await drain(run);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      isError: true,
      errorCode: 'TOOL_EXECUTION_ERROR',
    });
    expect((events.find((e) => e.type === 'tool_result') as { content: string }).content).toContain(
      'model down',
    );
    expect((await run.invocation).output).toBe('coped');
  });
});

describe('workflow agents', () => {
  it('sequential: each sees what the earlier wrote (history and output_key state)', async () => {
    const writeModel = scriptedModel([{ text: 'draft' }]);
    const research = say('research', 'facts', { outputKey: 'facts' });
    const write = createAgent({
      name: 'write',
      provider: writeModel,
      instruction: ({ state }) => `Use: ${state.facts}`,
    });
    const pipeline = new SequentialAgent({ name: 'report', subAgents: [research, write] });
    const result = await new Runner({ agent: pipeline }).run({ input: 'topic' }).invocation;
    expect(result.output).toBe('draft');
    expect(result.state.facts).toBe('facts');
    expect(writeModel.requests[0].system).toBe('Use: facts');
    expect(writeModel.requests[0].messages.map((m) => m.content)).toEqual(['topic', 'facts']);
  });

  it('parallel: isolated branches, state merged in declaration order, nothing lost (100 runs)', async () => {
    for (let i = 0; i < 100; i++) {
      const writer = (name: string, delay: number) =>
        createAgent({
          name,
          provider: scriptedModel([
            { toolCalls: [{ name: 'put', arguments: {} }] },
            { text: `${name} done`, delayMs: delay },
          ]),
          tools: [
            defineTool({
              name: 'put',
              description: 'writes state',
              parameters: {},
              execute: async (_a, ctx) => {
                await new Promise((r) => setTimeout(r, Math.random() * 3));
                ctx.state.set('shared', name);
                ctx.state.set(`own_${name}`, true);
                return 'ok';
              },
            }),
          ],
        });
      const a = writer('a', Math.random() < 0.5 ? 0 : 1);
      const b = writer('b', 0);
      const c = writer('c', Math.random() < 0.5 ? 0 : 1);
      const fan = new ParallelAgent({ name: 'fan', subAgents: [a, b, c] });
      const result = await new Runner({ agent: fan }).run({ input: 'go' }).invocation;
      expect(result.state).toEqual({ shared: 'c', own_a: true, own_b: true, own_c: true });
    }
  });

  it('parallel: a key a branch deletes is gone in that branch and after the merge', async () => {
    const seen: unknown[] = [];
    const remover = createAgent({
      name: 'rm',
      provider: scriptedModel([{ toolCalls: [{ name: 'drop' }, { name: 'look' }] }, { text: 'dropped' }]),
      tools: [
        defineTool({
          name: 'drop',
          description: 'deletes',
          parameters: {},
          execute: (_a, ctx) => {
            ctx.state.set('plan', null);
            ctx.state.set('user:draft', null);
            return 'ok';
          },
        }),
        defineTool({
          name: 'look',
          description: 'reads',
          parameters: {},
          execute: (_a, ctx) => {
            seen.push(ctx.state.get('plan'));
            return 'ok';
          },
        }),
      ],
    });
    const fan = new ParallelAgent({ name: 'fan', subAgents: [remover, say('other', 'o')] });
    const store = new InMemorySessionStore();
    const runner = new Runner({ agent: fan, store });
    await store.create({ id: 'x', state: { plan: 'old', kept: 1 } });
    await store.updateScopedState?.('user:ada', { 'user:draft': 'd' });
    const result = await runner.run({ input: 'go', sessionId: 'x', userId: 'ada' }).invocation;
    expect(seen).toEqual([undefined]);
    expect(result.state).toEqual({ kept: 1 });
    expect((await store.get('x'))?.state).toEqual({ kept: 1 });
    expect(await store.getScopedState?.('user:ada')).toEqual({});
  });

  it("a parallel agent in a loop merges each pass's writes once: a later pass does not undo what came after", async () => {
    const set = defineTool<{ key: string; value: number }>({
      name: 'set',
      description: 'sets',
      parameters: {
        type: 'object',
        properties: { key: { type: 'string' }, value: { type: 'number' } },
        required: ['key', 'value'],
      },
      execute: ({ key, value }, { state }) => {
        state.set(key, value);
        return 'ok';
      },
    });
    const setting = (name: string, turns: Parameters<typeof scriptedModel>[0]) =>
      createAgent({ name, provider: scriptedModel(turns), tools: [set] });
    // Pass 1: branch a sets x and app:x to 1, then c sets both to 2. Pass 2: the branches set nothing.
    const fan = new ParallelAgent({
      name: 'fan',
      subAgents: [
        setting('a', [
          {
            toolCalls: [
              { name: 'set', arguments: { key: 'x', value: 1 } },
              { name: 'set', arguments: { key: 'app:x', value: 1 } },
            ],
          },
          { text: 'a1' },
          { text: 'a2' },
        ]),
        createAgent({ name: 'b', provider: scriptedModel([{ text: 'b1' }, { text: 'b2' }]) }),
      ],
    });
    const after = setting('c', [
      {
        toolCalls: [
          { name: 'set', arguments: { key: 'x', value: 2 } },
          { name: 'set', arguments: { key: 'app:x', value: 2 } },
        ],
      },
      { text: 'c1' },
      { text: 'c2' },
    ]);
    const store = new InMemorySessionStore();
    const loop = new LoopAgent({ name: 'loop', subAgents: [fan, after], maxIterations: 2 });
    const result = await new Runner({ agent: loop, store }).run({ input: 'go', sessionId: 's' }).invocation;
    expect(result.state).toMatchObject({ x: 2, 'app:x': 2 });
    expect((await store.get('s'))?.state).toMatchObject({ x: 2, 'app:x': 2 });
    expect(await store.getScopedState('app')).toEqual({ 'app:x': 2 });
  });

  it("a parallel agent in a loop resumed in its second pass merges that pass's writes made before the pause", async () => {
    const set = defineTool<{ key: string; value: number }>({
      name: 'set',
      description: 'sets',
      parameters: {
        type: 'object',
        properties: { key: { type: 'string' }, value: { type: 'number' } },
        required: ['key', 'value'],
      },
      execute: ({ key, value }, { state }) => {
        state.set(key, value);
        return 'ok';
      },
    });
    const ran: string[] = [];
    const fan = new ParallelAgent({
      name: 'fan',
      subAgents: [
        createAgent({
          name: 'a',
          provider: scriptedModel([
            { toolCalls: [{ id: 'a-x', name: 'set', arguments: { key: 'x', value: 1 } }] },
            { text: 'a1' },
            { toolCalls: [{ id: 'a-y', name: 'set', arguments: { key: 'y', value: 5 } }] },
            { text: 'a2' },
          ]),
          tools: [set],
        }),
        createAgent({
          name: 'payer',
          provider: scriptedModel([
            { text: 'nothing to pay' },
            { toolCalls: [{ id: 'r1', name: 'refund', arguments: { order: 'A1' } }] },
            { text: 'paid' },
          ]),
          tools: [approvalRefund(ran)],
        }),
      ],
    });
    const after = createAgent({
      name: 'c',
      provider: scriptedModel([
        { toolCalls: [{ id: 'c-x', name: 'set', arguments: { key: 'x', value: 2 } }] },
        { text: 'c1' },
        { text: 'c2' },
      ]),
      tools: [set],
    });
    const store = new InMemorySessionStore();
    const loop = new LoopAgent({ name: 'loop', subAgents: [fan, after], maxIterations: 2 });
    const paused = await new Runner({ agent: loop, store }).run({ input: 'go', sessionId: 's' }).invocation;
    expect(paused.status).toBe('paused');
    const done = await new Runner({ agent: loop, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(done.status).toBe('complete');
    expect(ran).toEqual(['A1']);
    expect(done.state).toEqual({ x: 2, y: 5 });
  });

  it("an agent after a fan-out sees each branch's messages together, so a tool call is followed by its result", async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      parameters: {},
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return 'ok';
      },
    });
    // b answers while a's call runs: as they ran, b's answer sits between a's call and its result.
    const fan = new ParallelAgent({
      name: 'fan',
      subAgents: [
        createAgent({
          name: 'a',
          provider: scriptedModel([{ toolCalls: [{ id: 'a1', name: 'slow' }] }, { text: 'a done' }]),
          tools: [slow],
        }),
        createAgent({ name: 'b', provider: scriptedModel([{ text: 'b done', delayMs: 5 }]) }),
      ],
    });
    const summary = scriptedModel([{ text: 'summary' }]);
    const result = await new Runner({
      agent: new SequentialAgent({
        name: 'pipe',
        subAgents: [fan, createAgent({ name: 'c', provider: summary })],
      }),
    }).run({ input: 'go' }).invocation;
    expect(result.error).toBeUndefined();
    expect(result.output).toBe('summary');
    expect(
      summary.requests[0].messages.map((m) =>
        m.role === 'tool' ? `tool ${m.toolCallId}` : `${m.role} ${m.content}`,
      ),
    ).toEqual(['user go', 'assistant null', 'tool a1', 'assistant a done', 'assistant b done']);
  });

  it('an agent after nested fan-outs sees each branch, at every level, together', async () => {
    const slow = (ms: number) =>
      defineTool({
        name: 'slow',
        description: 'slow',
        parameters: {},
        execute: async () => {
          await new Promise((resolve) => setTimeout(resolve, ms));
          return 'ok';
        },
      });
    const inner = new ParallelAgent({
      name: 'inner',
      subAgents: [
        createAgent({
          name: 'a',
          provider: scriptedModel([{ toolCalls: [{ id: 'a1', name: 'slow' }] }, { text: 'a done' }]),
          tools: [slow(30)],
        }),
        createAgent({ name: 'b', provider: scriptedModel([{ text: 'b done', delayMs: 5 }]) }),
      ],
    });
    const outer = new ParallelAgent({
      name: 'outer',
      subAgents: [
        inner,
        createAgent({
          name: 'c',
          provider: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, { text: 'c done' }]),
          tools: [slow(10)],
        }),
      ],
    });
    const summary = scriptedModel([{ text: 'summary' }]);
    const result = await new Runner({
      agent: new SequentialAgent({
        name: 'pipe',
        subAgents: [outer, createAgent({ name: 'd', provider: summary })],
      }),
    }).run({ input: 'go' }).invocation;
    expect(result.error).toBeUndefined();
    // The lanes' order follows who spoke first; within them, a call is followed by its result.
    const seen = summary.requests[0].messages.map((m) =>
      m.role === 'tool' ? `tool ${m.toolCallId}` : `${m.role} ${m.content ?? m.toolCalls?.[0]?.id}`,
    );
    expect(seen.indexOf('tool a1')).toBe(seen.indexOf('assistant a1') + 1);
    expect(seen.indexOf('tool c1')).toBe(seen.indexOf('assistant c1') + 1);
    expect(seen.indexOf('assistant a done')).toBe(seen.indexOf('tool a1') + 1);
    expect(seen.indexOf('assistant c done')).toBe(seen.indexOf('tool c1') + 1);
    expect(seen).toHaveLength(8);
  });

  it('parallel branches do not see each other', async () => {
    const aModel = scriptedModel([{ text: 'a says', delayMs: 1 }]);
    const bModel = scriptedModel([{ text: 'b says', delayMs: 1 }]);
    const after = scriptedModel([{ text: 'summary' }]);
    const fan = new ParallelAgent({
      name: 'fan',
      subAgents: [createAgent({ name: 'a', provider: aModel }), createAgent({ name: 'b', provider: bModel })],
    });
    const pipe = new SequentialAgent({
      name: 'pipe',
      subAgents: [fan, createAgent({ name: 'sum', provider: after })],
    });
    await new Runner({ agent: pipe }).run({ input: 'go' }).invocation;
    expect(aModel.requests[0].messages.map((m) => m.content)).toEqual(['go']);
    expect(bModel.requests[0].messages.map((m) => m.content)).toEqual(['go']);
    expect(after.requests[0].messages.map((m) => m.content).sort()).toEqual(['a says', 'b says', 'go']);
  });

  it('loop: repeats until exit_loop; escalation in a nested loop stops only the inner loop', async () => {
    const critic = createAgent({
      name: 'critic',
      provider: scriptedModel([
        { text: 'again' },
        { toolCalls: [{ name: 'exit_loop', arguments: { reason: 'good' } }] },
        { text: 'ok' },
      ]),
    });
    const writer = createAgent({ name: 'writer', provider: scriptedModel([{ text: 'v1' }, { text: 'v2' }]) });
    const inner = new LoopAgent({ name: 'inner', subAgents: [writer, critic], maxIterations: 5 });
    const publisher = createAgent({
      name: 'publisher',
      provider: scriptedModel([{ text: 'published' }, { text: 'published again' }]),
    });
    const outer = new LoopAgent({
      name: 'outer',
      subAgents: [new SequentialAgent({ name: 'round', subAgents: [inner, publisher] })],
      maxIterations: 1,
    });
    const run = new Runner({ agent: outer }).run({ input: 'write' });
    const events = await drain(run);
    const result = await run.invocation;
    expect(result.output).toBe('published');
    expect(events.filter((e) => e.type === 'escalate')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'agent_end' && e.author === 'writer')).toHaveLength(2);
    expect(
      events
        .filter((e) => e.type === 'agent_end')
        .map((e) => e.author)
        .slice(-3),
    ).toEqual(['publisher', 'round', 'outer']);
  });

  it('loop stops at max_iterations', async () => {
    const worker = createAgent({
      name: 'worker',
      provider: scriptedModel([{ text: '1' }, { text: '2' }, { text: '3' }]),
    });
    const run = new Runner({
      agent: new LoopAgent({ name: 'l', subAgents: [worker], maxIterations: 3 }),
    }).run({ input: 'go' });
    const events = await drain(run);
    expect(events.filter((e) => e.type === 'agent_end' && e.author === 'worker')).toHaveLength(3);
  });
});

describe('invocation control', () => {
  it('endInvocation from a tool stops the invocation after the current step', async () => {
    const stopper = defineTool({
      name: 'stop',
      description: 'stops',
      parameters: {},
      execute: (_a, ctx) => {
        ctx.endInvocation();
        return 'stopping';
      },
    });
    const first = createAgent({
      name: 'first',
      provider: scriptedModel([{ toolCalls: [{ name: 'stop' }] }, { text: 'never' }]),
      tools: [stopper],
    });
    const second = say('second', 'never either');
    const run = new Runner({ agent: new SequentialAgent({ name: 'seq', subAgents: [first, second] }) }).run({
      input: 'go',
    });
    const events = await drain(run);
    expect((await run.invocation).status).toBe('complete');
    expect(events.some((e) => e.author === 'second')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('temp: state is visible during the invocation and never stored', async () => {
    const setter = defineTool({
      name: 'set',
      description: 'sets',
      parameters: {},
      execute: (_a, ctx) => {
        ctx.state.set('temp:scratch', 1);
        ctx.state.set('kept', 2);
        return 'ok';
      },
    });
    const readerModel = scriptedModel([{ text: 'read' }]);
    const writer = createAgent({
      name: 'w',
      provider: scriptedModel([{ toolCalls: [{ name: 'set' }] }, { text: 'set' }]),
      tools: [setter],
    });
    const reader = createAgent({
      name: 'r',
      provider: readerModel,
      instruction: ({ state }) => `scratch=${String(state['temp:scratch'])}`,
    });
    const store = new InMemorySessionStore();
    const result = await new Runner({
      agent: new SequentialAgent({ name: 's', subAgents: [writer, reader] }),
      store,
    }).run({ input: 'go', sessionId: 'x' }).invocation;
    expect(readerModel.requests[0].system).toBe('scratch=1');
    expect(result.state).toEqual({ kept: 2 });
    expect((await store.get('x'))?.state).toEqual({ kept: 2 });
  });

  it("an agent's own time limit stops the invocation, names the agent, and the session goes on afterwards", async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      parameters: {},
      execute: (_a, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'slow' }] }, { text: 'recovered' }]);
    const worker = createAgent({ name: 'worker', provider: model, tools: [slow], timeout: 50 });
    const store = new InMemorySessionStore();
    const runner = new Runner({ agent: new SequentialAgent({ name: 'job', subAgents: [worker] }), store });
    await expect(runner.run({ input: 'go', sessionId: 't' }).invocation).rejects.toMatchObject({
      code: 'TIMEOUT',
      context: { agent: 'worker', limit: 50 },
    });
    const next = await runner.run({ input: 'again', sessionId: 't' }).invocation;
    expect(next.output).toBe('recovered');
    expect(model.requests[1].messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('an invocation token budget across the tree stops the run, naming the agent and the limit', async () => {
    const a = createAgent({
      name: 'a',
      provider: scriptedModel([{ text: 'x', usage: { inputTokens: 60, outputTokens: 0 } }]),
    });
    const b = createAgent({
      name: 'b',
      provider: scriptedModel([{ text: 'y', usage: { inputTokens: 60, outputTokens: 0 } }]),
    });
    const run = new Runner({ agent: new SequentialAgent({ name: 's', subAgents: [a, b] }) }).run({
      input: 'go',
      limits: { maxTokens: 100 },
    });
    await expect(run.invocation).rejects.toMatchObject({
      code: 'MAX_TOKENS_EXCEEDED',
      context: { agent: 'b', scope: 'invocation', limit: 100 },
    });
  });
});
