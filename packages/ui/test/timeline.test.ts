import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/api-types.js';
import { buildTimeline } from '../src/timeline.js';

// Events in the order the runner writes them to a session: text deltas are never kept; the usage of
// a model call comes before its assistant message; a resumed run starts again under the same id.
let n = 0;
const ev = (type: string, fields: Record<string, unknown> = {}, branch = 'desk'): AgentEvent =>
  ({
    id: `e${n++}`,
    invocationId: (fields.inv as string) ?? 'inv1',
    branch,
    author: branch.split('.').at(-1)!,
    time: 1000 + n,
    type,
    ...fields,
  }) as AgentEvent;
const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  estimatedCost: 0.0001,
});
const call = { id: 'c1', name: 'refund', arguments: { order: 7 } };

const events: AgentEvent[] = [
  ev('run_start', { input: 'refund order 7' }),
  ev('message', { message: { role: 'user', content: 'refund order 7' } }, 'desk'),
  ev('agent_start', { agent: 'desk' }),
  ev('usage', { usage: usage(10, 5), model: 'gpt-x', duration: 120 }),
  ev('message', {
    message: {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 't1', name: 'transfer_to_agent', arguments: { agent_name: 'billing' } }],
    },
  }),
  ev('transfer', { from: 'desk', to: 'billing', stateDelta: { routed: true } }),
  ev('agent_start', { agent: 'billing' }, 'desk.billing'),
  ev('usage', { usage: usage(30, 8), model: 'gpt-y', duration: 80 }, 'desk.billing'),
  ev('message', { message: { role: 'assistant', content: null, toolCalls: [call] } }, 'desk.billing'),
  ev('tool_call', { call }, 'desk.billing'),
  ev('approval_required', { pending: [{ call, agent: 'billing', kind: 'approval' }] }, 'desk.billing'),
  ev('run_end', { status: 'paused', output: '', duration: 300, usage: usage(40, 13) }),
  ev('run_start', { input: 'refund order 7' }),
  ev('agent_start', { agent: 'billing' }, 'desk.billing'),
  ev('tool_call', { call }, 'desk.billing'),
  ev(
    'tool_result',
    { callId: 'c1', name: 'refund', content: 'refunded', isError: false, duration: 42 },
    'desk.billing',
  ),
  ev(
    'message',
    { message: { role: 'tool', content: 'refunded', toolCallId: 'c1', name: 'refund' } },
    'desk.billing',
  ),
  ev('usage', { usage: usage(50, 4), model: 'gpt-y', duration: 60 }, 'desk.billing'),
  ev('message', { message: { role: 'assistant', content: 'Done.' } }, 'desk.billing'),
  ev('state_delta', { delta: { last: 'Done.' }, stateDelta: { last: 'Done.' } }),
  ev('agent_end', { agent: 'billing', output: 'Done.' }, 'desk.billing'),
  ev('run_end', { status: 'complete', output: 'Done.', duration: 90, usage: usage(90, 17) }),
  ev('run_start', { input: 'thanks', inv: 'inv2' }),
  ev('error', { code: 'MAX_ITERATIONS', message: 'too many', inv: 'inv2' }),
];

describe('buildTimeline', () => {
  const [first, second] = buildTimeline(events);

  it('groups by invocation, a resumed run in the same one, ending as the last run ended', () => {
    expect(first).toMatchObject({
      id: 'inv1',
      input: 'refund order 7',
      end: { status: 'complete', output: 'Done.', duration: 390 },
    });
    expect(second).toMatchObject({
      id: 'inv2',
      input: 'thanks',
      entries: [{ kind: 'error', code: 'MAX_ITERATIONS' }],
    });
    expect(first.entries.map((e) => `${e.kind}@${e.depth}`)).toEqual([
      'agent_start@0',
      'model@0',
      'transfer@0',
      'state@0',
      'agent_start@1',
      'model@1',
      'tool@1',
      'approval@1',
      'resumed@0',
      'agent_start@1',
      'model@1',
      'state@0',
      'agent_end@1',
    ]);
  });

  it('gives each model call its model, tokens, cost, duration, the conversation before it and its answer', () => {
    const models = first.entries.filter((e) => e.kind === 'model');
    expect(models.map((m) => [m.model, m.usage.inputTokens, m.duration, m.request.length])).toEqual([
      ['gpt-x', 10, 120, 1],
      ['gpt-y', 30, 80, 2],
      ['gpt-y', 50, 60, 4],
    ]);
    expect(models[0].request).toEqual([{ role: 'user', content: 'refund order 7' }]);
    expect(models[1].response?.toolCalls).toEqual([call]);
    expect(models[2].request.at(-1)).toMatchObject({ role: 'tool', content: 'refunded' });
    expect(models[2].response).toMatchObject({ role: 'assistant', content: 'Done.' });
  });

  it('pairs a tool call with its result once, even when the resumed run calls it again', () => {
    const tools = first.entries.filter((e) => e.kind === 'tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      agent: 'billing',
      call,
      result: { content: 'refunded', isError: false, duration: 42 },
    });
  });

  it('shows state changes from state_delta events and from any event that carries them, once each', () => {
    const states = first.entries.filter((e) => e.kind === 'state').map((e) => e.delta);
    expect(states).toEqual([{ routed: true }, { last: 'Done.' }]);
  });

  it('keeps a call of a later message apart when the model used its id again', () => {
    // offline/auto names its calls auto_<turn>_<i> within a message: every message reuses auto_1_0.
    const again = (inv: string, line: string): AgentEvent[] => {
      const c = { id: 'auto_1_0', name: 'announce', arguments: { line } };
      return [
        ev('run_start', { input: line, inv }),
        ev('tool_call', { call: c, inv }),
        ev('tool_result', { callId: c.id, name: c.name, content: line, isError: false, duration: 1, inv }),
        ev('run_end', { status: 'complete', output: '', duration: 1, usage: usage(1, 1), inv }),
      ];
    };
    const [one, two] = buildTimeline([...again('m1', 'first'), ...again('m2', 'second')]);
    const tools = (i: typeof one) =>
      i.entries.flatMap((e) => (e.kind === 'tool' ? [[e.call.arguments.line, e.result?.content]] : []));
    expect(tools(one)).toEqual([['first', 'first']]);
    expect(tools(two)).toEqual([['second', 'second']]);
  });
});
