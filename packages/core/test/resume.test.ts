import { describe, expect, it } from 'vitest';
import {
  type Agent,
  ChangedCallError,
  createAgent,
  defineTool,
  InMemorySessionStore,
  Runner,
  SequentialAgent,
  type Session,
  type SessionStore,
  UsageError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { approvalRefund, askSize } from './support/tools.js';

// A pipeline whose every tool call needs approval: research (two calls), then write (one call).
// The scripted models stand for a remote model, so they outlive the runners that stand for processes.
function models() {
  return {
    research: scriptedModel([
      {
        toolCalls: [{ name: 'lookup', arguments: { n: 1 }, id: 'l1' }],
        usage: { inputTokens: 10, outputTokens: 1 },
      },
      {
        toolCalls: [{ name: 'lookup', arguments: { n: 2 }, id: 'l2' }],
        usage: { inputTokens: 20, outputTokens: 1 },
      },
      { text: 'notes', usage: { inputTokens: 30, outputTokens: 1 } },
    ]),
    write: scriptedModel([
      {
        toolCalls: [{ name: 'save', arguments: { n: 3 }, id: 's3' }],
        usage: { inputTokens: 40, outputTokens: 1 },
      },
      { text: 'article', usage: { inputTokens: 50, outputTokens: 1 } },
    ]),
  };
}

function build(ran: string[], model: ReturnType<typeof models> = models()): Agent {
  const step = (name: string) =>
    defineTool<{ n: number }>({
      name,
      description: name,
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      needsApproval: true,
      execute: ({ n }, ctx) => {
        ran.push(`${name}:${n}`);
        ctx.state.set(`${name}_${n}`, n * 10);
        return `${name} ${n} done`;
      },
    });
  const research = createAgent({
    name: 'research',
    provider: model.research,
    tools: [step('lookup')],
    outputKey: 'notes',
  });
  const write = createAgent({
    name: 'write',
    provider: model.write,
    tools: [step('save')],
  });
  return new SequentialAgent({ name: 'pipeline', subAgents: [research, write] });
}

// A store that survives "process restarts": sessions go through JSON, like a file would.
class JsonStore extends InMemorySessionStore implements SessionStore {
  override async get(id: string): Promise<Session | undefined> {
    const session = await super.get(id);
    return session && (JSON.parse(JSON.stringify(session)) as Session);
  }
}

describe('pause and resume', () => {
  it('resumes at every pause point in a new runner (a new process) and ends where an uninterrupted run does', async () => {
    const straightRan: string[] = [];
    const straight = await new Runner({ agent: build(straightRan) }).run({
      input: 'go',
      onApproval: async () => true,
    }).invocation;
    expect(straight.status).toBe('complete');

    const ran: string[] = [];
    const store = new JsonStore();
    const shared = models();
    let result = await new Runner({ agent: build(ran, shared), store }).run({ input: 'go', sessionId: 's' })
      .invocation;
    const pausePoints: string[] = [];
    while (result.status === 'paused' && pausePoints.length < 10) {
      const pending = result.pending ?? [];
      pausePoints.push(pending.map((p) => p.call.id).join(','));
      // Every resume rebuilds the agents and reads the session back, as a new process would.
      const freshRan: string[] = [];
      result = await new Runner({ agent: build(freshRan, shared), store }).resume({
        sessionId: 's',
        decisions: pending.map((p) => ({ callId: p.call.id, approve: true })),
      }).invocation;
      ran.push(...freshRan);
    }
    expect(pausePoints).toEqual(['l1', 'l2', 's3']);
    expect(ran).toEqual(straightRan);
    expect(result.output).toBe(straight.output);
    expect(result.state).toEqual(straight.state);
    expect(result.usage).toEqual(straight.usage);
    expect((await store.get('s'))?.checkpoint).toBeUndefined();
  });

  it('a denied call is reported to the model and the run goes on', async () => {
    const ran: string[] = [];
    const store = new JsonStore();
    const shared = models();
    const first = await new Runner({ agent: build(ran, shared), store }).run({ input: 'go', sessionId: 'd' })
      .invocation;
    const second = await new Runner({ agent: build(ran, shared), store }).resume({
      sessionId: 'd',
      decisions: [{ callId: first.pending![0].call.id, approve: false, reason: 'not now' }],
    }).invocation;
    expect(second.status).toBe('paused');
    expect(ran).toEqual([]);
    const session = await store.get('d');
    const denied = session?.events.find((e) => e.type === 'tool_result' && e.callId === 'l1');
    expect(denied).toMatchObject({ isError: true, content: 'The call was not run: not now.' });
  });

  it('refuses to resume a session that is not paused, or with an unknown call id, and a new message on a paused one', async () => {
    const store = new JsonStore();
    const runner = new Runner({ agent: build([]), store });
    await expect(runner.resume({ sessionId: 'nope', decisions: [] }).invocation).rejects.toThrow(UsageError);
    await runner.run({ input: 'go', sessionId: 'p' }).invocation;
    await expect(
      runner.resume({ sessionId: 'p', decisions: [{ callId: 'zz', approve: true }] }).invocation,
    ).rejects.toThrow(/no pending tool call zz \(pending: l1\)/);
    await expect(runner.run({ input: 'again', sessionId: 'p' }).invocation).rejects.toThrow(
      /is paused waiting for a decision on l1/,
    );
    const done = new JsonStore();
    const plain = new Runner({
      agent: createAgent({ name: 'a', provider: scriptedModel([{ text: 'hi' }]) }),
      store: done,
    });
    await plain.run({ input: 'x', sessionId: 'q' }).invocation;
    await expect(plain.resume({ sessionId: 'q', decisions: [] }).invocation).rejects.toThrow(/is not paused/);
  });

  it('refuses a resume that decides nothing, naming the pending calls, and writes nothing', async () => {
    const ran: string[] = [];
    const store = new JsonStore();
    const runner = new Runner({ agent: build(ran, models()), store });
    await runner.run({ input: 'go', sessionId: 'e' }).invocation;
    const before = await store.get('e');
    await expect(runner.resume({ sessionId: 'e', decisions: [] }).invocation).rejects.toThrow(
      new UsageError(
        'session e is paused waiting for a decision on l1 (lookup), and this resume gives none: approve, deny or answer at least one',
      ),
    );
    expect(await store.get('e')).toEqual(before);
    expect(ran).toEqual([]);
  });

  it('refuses a decision for a call shown with other arguments than the call pending under its id, and runs nothing', async () => {
    // A page left open on the first pause, after the session was resumed elsewhere and paused again
    // on a call the model gave the same id.
    const ran: string[] = [];
    const store = new JsonStore();
    const agent = createAgent({
      name: 'a',
      provider: scriptedModel([
        { toolCalls: [{ id: 'c', name: 'lookup', arguments: { n: 1 } }] },
        { text: 'one' },
        { toolCalls: [{ id: 'c', name: 'lookup', arguments: { n: 666 } }] },
        { text: 'two' },
      ]),
      tools: [
        defineTool<{ n: number }>({
          name: 'lookup',
          description: 'lookup',
          parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
          needsApproval: true,
          execute: ({ n }) => {
            ran.push(`lookup:${n}`);
            return 'ok';
          },
        }),
      ],
    });
    const runner = new Runner({ agent, store });
    const shown = (await runner.run({ input: 'first', sessionId: 's' }).invocation).pending![0].call;
    const seen = { name: shown.name, arguments: shown.arguments };
    await runner.resume({ sessionId: 's', decisions: [{ callId: 'c', approve: true, seen }] }).invocation;
    await runner.run({ input: 'second', sessionId: 's' }).invocation;
    const stale = runner.resume({ sessionId: 's', decisions: [{ callId: 'c', approve: true, seen }] });
    await expect(stale.invocation).rejects.toThrow(ChangedCallError);
    await expect(stale.invocation).rejects.toThrow(
      'session s: the call waiting as c is lookup({"n":666}), not the call that was decided; nothing was run',
    );
    expect(ran).toEqual(['lookup:1']);
    expect((await store.get('s'))?.checkpoint).toBeDefined();
    // Decided as it is now, the call runs.
    const now = { name: 'lookup', arguments: { n: 666 } };
    const done = await runner.resume({
      sessionId: 's',
      decisions: [{ callId: 'c', approve: true, seen: now }],
    }).invocation;
    expect(done.output).toBe('two');
    expect(ran).toEqual(['lookup:1', 'lookup:666']);
  });

  it('refuses decisions from a runner whose tree lacks the paused agent, rather than dropping the calls', async () => {
    const store = new JsonStore();
    const ran: string[] = [];
    await new Runner({ agent: build(ran), store }).run({ input: 'go', sessionId: 'p' }).invocation;
    const other = new Runner({
      agent: createAgent({ name: 'other', provider: scriptedModel([{ text: 'hi' }]) }),
      store,
    });
    await expect(
      other.resume({ sessionId: 'p', decisions: [{ callId: 'l1', approve: true }] }).invocation,
    ).rejects.toThrow(
      /is paused in agent pipeline, which agent other does not contain; resume it with pipeline/,
    );
    expect(ran).toEqual([]);
    expect((await store.get('p'))?.checkpoint).toMatchObject({ pending: [{ call: { id: 'l1' } }] });
  });

  it('a tool that asks a human pauses; the answer on resume becomes its result', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'ask_user', id: 'q1' }] },
      { text: 'ordering large' },
    ]);
    const store = new JsonStore();
    const agent = createAgent({ name: 'shop', provider: model, tools: [askSize] });
    const paused = await new Runner({ agent, store }).run({ input: 'order a shirt', sessionId: 'i' })
      .invocation;
    expect(paused.pending).toMatchObject([{ kind: 'input', reason: 'Which size?', call: { id: 'q1' } }]);
    const done = await new Runner({ agent, store }).resume({
      sessionId: 'i',
      decisions: [{ callId: 'q1', approve: true, input: 'large' }],
    }).invocation;
    expect(done.output).toBe('ordering large');
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'large' });
  });

  it('approving a question without an answer is refused, and the session still waits', async () => {
    const agent = createAgent({
      name: 'shop',
      provider: scriptedModel([{ toolCalls: [{ name: 'ask_user', id: 'q1' }] }]),
      tools: [askSize],
    });
    const store = new JsonStore();
    await new Runner({ agent, store }).run({ input: 'order', sessionId: 'k' }).invocation;
    const approve = new Runner({ agent, store }).resume({
      sessionId: 'k',
      decisions: [{ callId: 'q1', approve: true }],
    }).invocation;
    await expect(approve).rejects.toThrow(UsageError);
    await expect(approve).rejects.toThrow(/q1 asks a question, not for approval \(Which size\?\)/);
    expect((await store.get('k'))?.checkpoint).toBeDefined();
  });

  it('a call paused after a transfer runs on approval in a new runner, by the agent transferred to', async () => {
    const ran: string[] = [];
    const refund = approvalRefund(ran);
    const billingModel = scriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order: 'A-17' }, id: 'r1' }] },
      { text: 'billing is done' },
    ]);
    const build = () => {
      const billing = createAgent({ name: 'billing', provider: billingModel, tools: [refund] });
      return createAgent({
        name: 'desk',
        provider: scriptedModel([
          { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'billing' }, id: 't1' }] },
        ]),
        subAgents: [billing],
      });
    };
    const store = new JsonStore();
    const paused = await new Runner({ agent: build(), store }).run({ input: 'refund A-17', sessionId: 't' })
      .invocation;
    expect(paused.pending).toMatchObject([{ agent: 'billing', call: { id: 'r1' } }]);
    const done = await new Runner({ agent: build(), store }).resume({
      sessionId: 't',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(ran).toEqual(['A-17']);
    expect(done).toMatchObject({ status: 'complete', output: 'billing is done' });
    expect((await store.get('t'))?.checkpoint).toBeUndefined();
  });

  it('with someone to ask (onApproval), a question is answered at once and never pauses', async () => {
    const asked: unknown[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'ask_user', id: 'q1' }] },
      { text: 'ordering small' },
    ]);
    const agent = createAgent({ name: 'shop', provider: model, tools: [askSize] });
    const done = await new Runner({ agent }).run({
      input: 'order',
      onApproval: async (pending) => {
        asked.push({ kind: pending.kind, reason: pending.reason });
        return { callId: pending.call.id, approve: true, input: 'small' };
      },
    }).invocation;
    expect(asked).toEqual([{ kind: 'input', reason: 'Which size?' }]);
    expect(done.status).toBe('complete');
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'small' });
  });
});
