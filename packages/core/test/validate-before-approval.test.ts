import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type ChatParams,
  createAgent,
  defineTool,
  type ModelProvider,
  type ModelResponse,
  type PendingApproval,
  Runner,
  toolCallFromText,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const refund = defineTool<{ order: string; amount: number }>({
  name: 'refund',
  description: 'Refund an order',
  parameters: {
    type: 'object',
    properties: { order: { type: 'string' }, amount: { type: 'number' } },
    required: ['order', 'amount'],
    additionalProperties: false,
  },
  execute: ({ order }) => `refunded ${order}`,
});

describe('arguments are validated before approval', () => {
  it('an invalid call goes back to the model and nobody is asked; the fixed call is asked about', async () => {
    const asked: PendingApproval[] = [];
    const model = scriptedModel([
      { toolCalls: [{ id: 'bad', name: 'refund', arguments: { order: 'A1', amount: 'lots' } }] },
      { toolCalls: [{ id: 'good', name: 'refund', arguments: { order: 'A1', amount: 5 } }] },
      { text: 'done' },
    ]);
    const agent = createAgent({
      name: 'desk',
      provider: model,
      tools: [refund],
      approvalPolicy: () => 'ask',
    });
    const result = await new Runner({ agent }).run({
      input: 'refund A1',
      onApproval: async (pending) => {
        asked.push(pending);
        return true;
      },
    }).invocation;
    expect(result.output).toBe('done');
    expect(asked.map((p) => p.call.id)).toEqual(['good']);
    const sent = model.requests[1].messages.at(-1);
    expect(sent).toMatchObject({ role: 'tool', toolCallId: 'bad', isError: true });
    expect(sent?.content).toContain('Invalid arguments for refund');
  });

  it('a call whose arguments were not a JSON object never runs, though its tool takes no required argument', async () => {
    let ran = 0;
    const now = defineTool({
      name: 'now',
      description: 'The time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } } },
      execute: () => {
        ran++;
        return 'noon';
      },
    });
    // As a provider's stream assembler hands it over (script models only make well-formed calls).
    const requests: ChatParams[] = [];
    const answer = (params: ChatParams): ModelResponse => {
      requests.push(structuredClone(params));
      const usage = { inputTokens: 1, outputTokens: 1 };
      return requests.length === 1
        ? {
            content: null,
            toolCalls: [toolCallFromText('cut', 'now', '{"zone": ')],
            usage,
            finishReason: 'tool_calls',
          }
        : { content: 'sorry', toolCalls: [], usage, finishReason: 'stop' };
    };
    const provider: ModelProvider = {
      name: 'cut-stream',
      chat: async (params) => answer(params),
      async *stream(params) {
        yield { type: 'done', response: answer(params) };
      },
    };
    const result = await new Runner({ agent: createAgent({ name: 'clock', provider, tools: [now] }) }).run({
      input: 'time?',
    }).invocation;
    expect(result.output).toBe('sorry');
    expect(ran).toBe(0);
    const sent = requests[1].messages.at(-1);
    expect(sent).toMatchObject({ role: 'tool', toolCallId: 'cut', isError: true });
    expect(sent?.content).toBe(
      'Invalid arguments for now: they must be a JSON object, got "{\\"zone\\": ". Fix the arguments and call again.',
    );
  });

  it('an invalid call never pauses the run for a decision', async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: 'bad', name: 'refund', arguments: {} }] },
      { text: 'sorry' },
    ]);
    const agent = createAgent({
      name: 'desk',
      provider: model,
      tools: [refund],
      approvalPolicy: () => 'ask',
    });
    const result = await new Runner({ agent }).run({ input: 'refund' }).invocation;
    expect(result.status).toBe('complete');
    expect(result.toolCalls).toMatchObject([{ id: 'bad', isError: true }]);
  });
});

describe('a model that keeps calling a missing tool', () => {
  it('is told once, then the run stops with a MODEL_ERROR blaming the model', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'nope', arguments: {} }] },
      { toolCalls: [{ name: 'nope', arguments: {} }] },
      { text: 'never reached' },
    ]);
    const agent = createAgent({ name: 'a', provider: model, tools: [refund] });
    const error = await new Runner({ agent }).run({ input: 'x' }).invocation.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('MODEL_ERROR');
    expect((error as AgentError).message).toMatch(/unknown tool "nope" again/);
    expect(model.requests).toHaveLength(2);
  });
});
