import { describe, expect, it } from 'vitest';
import {
  type Agent,
  AgentError,
  type AgentEvent,
  agentTool,
  createAgent,
  LoopAgent,
  ParallelAgent,
  Runner,
  SequentialAgent,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const say = (name: string, text: string) => createAgent({ name, provider: scriptedModel([{ text }]) });
// An agent whose model fails on its first call, as a provider's error would.
const broken = (name: string) =>
  createAgent({
    name,
    provider: scriptedModel([{ error: { message: 'upstream exploded', code: 'MODEL_ERROR' } }]),
  });

async function failure(agent: Agent) {
  const events: AgentEvent[] = [];
  const error = await new Runner({ agent })
    .run({ input: 'go', onEvent: (e) => events.push(e) })
    .invocation.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AgentError);
  return { error: error as AgentError, events };
}

describe('an error deep in an agent tree names the agent it happened in', () => {
  it.each([
    [
      'a sequential agent',
      () =>
        new SequentialAgent({ name: 'pipeline', subAgents: [say('research', 'notes'), broken('writer')] }),
      ['pipeline', 'writer'],
    ],
    [
      'a parallel agent',
      () => new ParallelAgent({ name: 'fan', subAgents: [say('left', 'fine'), broken('right')] }),
      ['fan', 'right'],
    ],
    [
      'a loop agent',
      () => new LoopAgent({ name: 'rounds', maxIterations: 2, subAgents: [broken('looper')] }),
      ['rounds', 'looper'],
    ],
    [
      'a workflow inside a workflow',
      () =>
        new SequentialAgent({
          name: 'outer',
          subAgents: [new ParallelAgent({ name: 'inner', subAgents: [say('a', 'x'), broken('b')] })],
        }),
      ['outer', 'inner', 'b'],
    ],
    ['a single agent', () => broken('solo'), ['solo']],
  ] as const)('in %s: on the error and its event, with the code unchanged', async (_, make, path) => {
    const { error, events } = await failure(make());
    expect(error).toMatchObject({ code: 'MODEL_ERROR', message: 'upstream exploded', agentPath: path });
    expect(events.filter((e) => e.type === 'error')).toEqual([
      expect.objectContaining({ code: 'MODEL_ERROR', message: 'upstream exploded', agentPath: path }),
    ]);
  });

  it('of any kind (a remote agent), named by the workflow that ran it', async () => {
    // Such as a `type: a2a` agent, whose own errors know nothing of the tree.
    const remote: Agent = {
      name: 'remote',
      description: 'elsewhere',
      type: 'llm',
      subAgents: [],
      runInvocation: async () => {
        throw new AgentError('the remote agent said no', 'PROVIDER_ERROR');
      },
    };
    const { error } = await failure(
      new SequentialAgent({ name: 'pipeline', subAgents: [say('a', 'x'), remote] }),
    );
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', agentPath: ['pipeline', 'remote'] });
  });

  it('after a transfer, the agent transferred to', async () => {
    const billing = broken('billing');
    const desk = createAgent({
      name: 'desk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'billing' } }] },
      ]),
      subAgents: [billing],
    });
    const { error } = await failure(desk);
    expect(error.agentPath).toEqual(['desk', 'billing']);
  });

  it('inside an agent tool: from the top, on the child error and the tool result the caller sees', async () => {
    const pipeline = new SequentialAgent({
      name: 'pipeline',
      subAgents: [say('research', 'notes'), broken('writer')],
    });
    const boss = createAgent({
      name: 'boss',
      provider: scriptedModel([
        { toolCalls: [{ name: 'pipeline', arguments: { request: 'go' }, id: 'p1' }] },
        { text: 'finished anyway' },
      ]),
      tools: [agentTool(pipeline)],
    });
    const events: AgentEvent[] = [];
    const result = await new Runner({ agent: boss }).run({ input: 'go', onEvent: (e) => events.push(e) })
      .invocation;
    expect(result.output).toBe('finished anyway');
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      code: 'MODEL_ERROR',
      agentPath: ['boss', 'pipeline', 'writer'],
    });
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'p1')).toMatchObject({
      isError: true,
      errorCode: 'TOOL_EXECUTION_ERROR',
      content: 'Tool pipeline failed in agent boss › pipeline › writer: upstream exploded',
    });
  });
});
