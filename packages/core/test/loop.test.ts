import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AgentEvent,
  CANCELLED_RESULT,
  createAgent,
  defineTool,
  InMemoryMemory,
  offline,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { add, sleeper } from './support/tools.js';

async function collect(run: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

describe('the agent loop', () => {
  it('streams events in order: start, text, message, usage, tool call and result, end', async () => {
    const model = scriptedModel([
      { text: 'Let me add.', toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    ]);
    const agent = createAgent({ name: 'calc', provider: model, tools: [add] });
    const run = agent.run('2+3?');
    const events = await collect(run);
    const result = await run;
    // Consecutive text deltas collapse to one entry: the offline model streams word by word.
    const types = events
      .map((e) => e.type)
      .filter((t, i, all) => t !== 'text_delta' || all[i - 1] !== 'text_delta');
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(7);
    expect(types).toEqual([
      'run_start',
      'message',
      'agent_start',
      'text_delta',
      'usage',
      'message',
      'tool_call',
      'tool_result',
      'message',
      'text_delta',
      'usage',
      'message',
      'agent_end',
      'run_end',
    ]);
    const deltas = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []));
    expect(deltas.join('')).toBe('Let me add.The sum is 5.');
    for (const event of events) {
      expect(event.invocationId).toBe(events[0].invocationId);
      expect(event.branch).toBe('calc');
      // The one runtime authors the user's message `user`, as the CLI's sessions always had.
      expect(event.author).toBe(event.type === 'message' && event.message.role === 'user' ? 'user' : 'calc');
      expect(typeof event.time).toBe('number');
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(result.output).toBe('The sum is 5.');
    expect(result.toolCalls).toMatchObject([
      { name: 'add', arguments: { a: 2, b: 3 }, result: 5, isError: false },
    ]);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.usage.iterations).toBe(2);
    expect(JSON.parse(JSON.stringify(events))).toEqual(events);
    model.assertConsumed();
  });

  it('runs parallel calls concurrently: an invalid one and a timed-out one become error results', async () => {
    const log: string[] = [];
    const slow = sleeper('slow', 5_000, log);
    const quick = sleeper('quick', 30, log);
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'add', arguments: { a: 1, b: 'two' } },
          { name: 'slow', arguments: {} },
          { name: 'quick', arguments: {} },
          { name: 'add', arguments: { a: 1, b: 2 } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createAgent({
      name: 'par',
      provider: model,
      tools: [add, { ...slow, timeout: 100 }, quick],
    });
    const events = await collect(agent.run('go'));
    const results = events.filter((e) => e.type === 'tool_result');
    const byId = Object.fromEntries(results.map((r) => [r.callId, r]));
    expect(byId.call_1_0).toMatchObject({ isError: true, errorCode: 'TOOL_VALIDATION_ERROR' });
    expect(byId.call_1_0.content).toContain('arguments.b must be number');
    expect(byId.call_1_1).toMatchObject({ isError: true, errorCode: 'TIMEOUT' });
    expect(byId.call_1_2).toMatchObject({ isError: false, content: 'quick done' });
    expect(byId.call_1_3).toMatchObject({ isError: false, content: '3' });
    // Concurrency: both sleepers started before either finished.
    expect(log.slice(0, 2).sort()).toEqual(['start quick', 'start slow']);
    expect(log).toContain('abort slow');
    // The model saw every result, in call order, errors flagged.
    const request = model.requests[1];
    const toolMessages = request.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.toolCallId)).toEqual(['call_1_0', 'call_1_1', 'call_1_2', 'call_1_3']);
    expect(toolMessages[0].isError).toBe(true);
  });

  it('times out a tool that never looks at its signal, and a cancel stops the wait on it', async () => {
    const deaf = defineTool({
      name: 'deaf',
      description: 'never settles and never reads its signal',
      parameters: { type: 'object', properties: {} },
      timeout: 50,
      execute: () => new Promise(() => undefined),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'deaf' }] }, { text: 'gave up' }]);
    const result = await createAgent({ name: 'a', provider: model, tools: [deaf] }).run('x');
    expect(result.toolCalls[0]).toMatchObject({
      isError: true,
      result: expect.stringContaining('timed out after 50 ms'),
    });
    expect(result.text).toBe('gave up');
    const stuck = scriptedModel([{ toolCalls: [{ name: 'deaf' }] }]);
    const controller = new AbortController();
    const run = createAgent({ name: 'b', provider: stuck, tools: [{ ...deaf, timeout: 60_000 }] }).run('x', {
      signal: controller.signal,
      onToolCall: () => setTimeout(() => controller.abort(), 10),
    });
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('gives a throwing tool TOOL_EXECUTION_ERROR as a result, not a crash', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'always fails',
      parameters: { type: 'object', properties: {} },
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'broken' }] }, { text: 'sorry' }]);
    const run = createAgent({ name: 'a', provider: model, tools: [broken] }).run('x');
    const events = await collect(run);
    const result = await run;
    expect(result.output).toBe('sorry');
    const toolResult = events.find((e) => e.type === 'tool_result');
    expect(toolResult).toMatchObject({ isError: true, errorCode: 'TOOL_EXECUTION_ERROR' });
    expect(model.requests[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      isError: true,
      content: 'Tool broken failed: disk on fire',
    });
  });

  it('reports an unknown tool to the model as a validation error', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'nope' }] }, { text: 'ok' }]);
    const result = await createAgent({ name: 'a', provider: model, tools: [add] }).run('x');
    expect(result.toolCalls[0]).toMatchObject({ name: 'nope', isError: true });
    expect(String(result.toolCalls[0].result)).toContain('Available tools: add');
  });

  it('after a cancel during a tool run, a second run on the same history succeeds', async () => {
    const log: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'slow' }, { name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'recovered' },
    ]);
    const agent = createAgent({ name: 'a', provider: model, tools: [sleeper('slow', 10_000, log), add] });
    const controller = new AbortController();
    const run = agent.run('start', {
      signal: controller.signal,
      onToolCall: (name) => name === 'slow' && setTimeout(() => controller.abort(), 20),
    });
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('ABORTED');
    expect(log).toContain('abort slow');
    const partial = (error as AgentError).result as { messages: { role: string; toolCalls?: unknown[] }[] };
    // The cancelled run left tool calls without results.
    expect(partial.messages.at(-1)?.role).toBe('assistant');
    const second = await agent.run('try again', { messages: partial.messages as never });
    expect(second.output).toBe('recovered');
    const sent = model.requests[1].messages;
    const repaired = sent.filter((m) => m.role === 'tool');
    expect(repaired.map((m) => m.content)).toEqual([CANCELLED_RESULT, CANCELLED_RESULT]);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
  });

  it('breaking out of the event stream cancels the run', async () => {
    const model = scriptedModel([{ text: 'one two three four five six', delayMs: 20 }]);
    const run = createAgent({ name: 'a', provider: model }).run('x');
    for await (const event of run) if (event.type === 'text_delta') break;
    await expect(run.result).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('limits', () => {
  const looping = () =>
    scriptedModel(
      Array.from({ length: 20 }, (_, i) => ({
        text: `step ${i}`,
        toolCalls: [{ name: 'add', arguments: { a: i, b: 1 } }],
      })),
    );

  it('stops at maxIterations (default 10), keeping partial output and history', async () => {
    const run = createAgent({ name: 'a', provider: looping(), tools: [add] }).run('go');
    const events: AgentEvent[] = [];
    for await (const e of run) events.push(e);
    const error = (await run.then(
      () => undefined,
      (e: unknown) => e,
    )) as AgentError;
    expect(error.code).toBe('MAX_ITERATIONS_EXCEEDED');
    expect(error.context).toMatchObject({ agent: 'a', limit: 10 });
    const partial = error.result as { output: string; messages: unknown[]; usage: { iterations: number } };
    expect(partial.output).toBe('step 9');
    expect(partial.usage.iterations).toBe(10);
    expect(partial.messages).toHaveLength(21);
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'MAX_ITERATIONS_EXCEEDED' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
  });

  it('stops when the token budget is spent', async () => {
    const model = scriptedModel(
      Array.from({ length: 5 }, () => ({
        toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }],
        usage: { inputTokens: 40, outputTokens: 10 },
      })),
    );
    const error = await createAgent({ name: 'a', provider: model, tools: [add], maxTokens: 120 })
      .run('go')
      .then(
        () => undefined,
        (e: unknown) => e as AgentError,
      );
    expect(error?.code).toBe('MAX_TOKENS_EXCEEDED');
    expect(error?.context).toMatchObject({ used: 150, limit: 120 });
  });

  it('stops a run that takes longer than its timeout, aborting the tool', async () => {
    const log: string[] = [];
    const model = scriptedModel([{ toolCalls: [{ name: 'slow' }] }]);
    const error = await createAgent({ name: 'a', provider: model, tools: [sleeper('slow', 10_000, log)] })
      .run('go', { timeout: 50 })
      .then(
        () => undefined,
        (e: unknown) => e as AgentError,
      );
    expect(error?.code).toBe('TIMEOUT');
    expect(log).toEqual(['start slow', 'abort slow']);
  });

  it('per-run limits override the agent', async () => {
    const error = await createAgent({ name: 'a', provider: looping(), tools: [add], maxIterations: 10 })
      .run('go', { maxIterations: 2 })
      .then(
        () => undefined,
        (e: unknown) => e as AgentError,
      );
    expect(error?.context.limit).toBe(2);
  });
});

describe('structured output, memory and usage', () => {
  const schema = {
    type: 'object',
    properties: { queue: { enum: ['billing', 'tech'] } },
    required: ['queue'],
    additionalProperties: false,
  };

  it('parses and validates the final answer against the output schema', async () => {
    const model = scriptedModel([{ text: '```json\n{"queue":"tech"}\n```' }]);
    const result = await createAgent({ name: 'a', provider: model }).run<{ queue: string }>('route', {
      outputSchema: schema,
    });
    expect(result.output).toEqual({ queue: 'tech' });
    expect(model.requests[0].responseFormat).toEqual({ type: 'json_schema', schema });
  });

  it('fails with OUTPUT_PARSE_ERROR on an answer that does not fit', async () => {
    const model = scriptedModel([{ text: '{"queue":"sales"}' }]);
    await expect(
      createAgent({ name: 'a', provider: model, outputSchema: schema }).run('route'),
    ).rejects.toMatchObject({
      code: 'OUTPUT_PARSE_ERROR',
    });
  });

  it('continues a conversation saved in memory by session id', async () => {
    const memory = new InMemoryMemory();
    const model = scriptedModel([{ text: 'hi Ada' }, { text: 'you are Ada' }]);
    const agent = createAgent({ name: 'a', provider: model, memory });
    await agent.run('I am Ada', { sessionId: 's1' });
    await agent.run('who am I?', { sessionId: 's1' });
    expect(model.requests[1].messages.map((m) => m.content)).toEqual(['I am Ada', 'hi Ada', 'who am I?']);
    expect(await memory.load('s1')).toHaveLength(4);
    expect(await memory.load('other')).toEqual([]);
  });

  it('counts usage with cache buckets and cost, per run and per agent', async () => {
    const model = scriptedModel([
      {
        text: 'a',
        usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 500, cacheWriteTokens: 200 },
      },
      { text: 'b', usage: { inputTokens: 1000, outputTokens: 100 } },
    ]);
    const agent = createAgent({
      name: 'a',
      provider: model,
      pricing: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2.5 },
    });
    const first = await agent.run('x');
    expect(first.usage).toMatchObject({
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 500,
      cacheWriteTokens: 200,
      totalTokens: 1800,
      iterations: 1,
    });
    expect(first.usage.estimatedCost).toBeCloseTo((1000 * 2 + 100 * 8 + 500 * 0.5 + 200 * 2.5) / 1e6, 12);
    await agent.run('y');
    expect(agent.usage.totalTokens).toBe(2900);
    expect(agent.usage.iterations).toBe(2);
  });

  it('attaches an image returned by a tool to the tool message', async () => {
    const snapshot = defineTool({
      name: 'snapshot',
      description: 'takes a picture',
      parameters: {},
      execute: () => ({ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', text: 'a chart' }),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'snapshot' }] }, { text: 'nice' }]);
    const run = createAgent({ name: 'a', provider: model, tools: [snapshot] }).run('x');
    const events = await collect(run);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      hasImage: true,
      content: 'a chart',
    });
    expect(model.requests[1].messages[2].image).toEqual({
      type: 'image',
      mediaType: 'image/png',
      data: 'iVBORw0KGgo=',
      text: 'a chart',
    });
  });

  it('renders a function instruction and sends it as the system prompt', async () => {
    const model = scriptedModel([{ text: 'ok' }]);
    await createAgent({
      name: 'a',
      provider: model,
      instruction: ({ state, input }) => `Company ${state.company}; asked: ${input}`,
    }).run('q', {
      state: { company: 'ACME' },
    });
    expect(model.requests[0].system).toBe('Company ACME; asked: q');
  });

  it('calls the run callbacks', async () => {
    const seen: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'two' },
    ]);
    await createAgent({ name: 'a', provider: model, tools: [add] }).run('x', {
      onToken: (t) => seen.push(`token:${t}`),
      onToolCall: (n) => seen.push(`call:${n}`),
      onToolResult: (n, r) => seen.push(`result:${n}=${String(r)}`),
      onComplete: (r) => seen.push(`complete:${r.output}`),
    });
    expect(seen).toEqual(['call:add', 'result:add=2', 'token:two', 'complete:two']);
  });

  it('echo runs offline with no configuration', async () => {
    const result = await createAgent({ name: 'hello', provider: offline('echo') }).run('hello world');
    expect(result.output).toBe('hello world');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });
});
