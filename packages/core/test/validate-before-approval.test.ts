import { describe, expect, it } from 'vitest';
import { AgentError, createAgent, defineTool, type PendingApproval, Runner } from '../src/index.js';
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
