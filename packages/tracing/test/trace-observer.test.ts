import {
  createAgent,
  defineTool,
  InMemorySessionStore,
  LoopAgent,
  observeRuns,
  ParallelAgent,
  Runner,
  retry,
} from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { SpanStatusCode } from '@opentelemetry/api';
import { defaultResource } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceObserver } from '../src/index.js';
import { SpanBatcher } from '../src/span-batcher.js';
import { TableSink } from '../src/table-sink.js';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

// Both ways spans are made: a real SDK tracer (`tracer.startSpan`), and agentctl's own spans, batched
// by its own processor. Spans are kept in memory; reading them flushes the batch first.
const WAYS = ['tracer.startSpan', 'span table'] as const;
let way: (typeof WAYS)[number];

function tracedSpans(options: { captureContent?: boolean; scrub?: (text: string) => string } = {}) {
  const exporter = new InMemorySpanExporter();
  const batcher = new SpanBatcher(exporter, defaultResource(), { name: 'test' });
  const target =
    way === 'span table'
      ? new TableSink(batcher, new AlwaysOnSampler())
      : new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  stops.push(observeRuns(new TraceObserver(target, options)));
  // A copy: the exporter's own list grows as spans end.
  return async () => {
    await batcher.forceFlush();
    return [...exporter.getFinishedSpans()];
  };
}

const parentId = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const children = (spans: readonly ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => parentId(s) === parent.spanContext().spanId).map((s) => s.name);

describe.each(WAYS)('TraceObserver through %s', (current) => {
  beforeEach(() => {
    way = current;
  });

  it('puts parallel branches side by side under their workflow, each with its own model call', async () => {
    const spans = tracedSpans();
    const a = createAgent({ name: 'a', provider: scriptedModel([{ text: 'from a' }]) });
    const b = createAgent({ name: 'b', provider: scriptedModel([{ text: 'from b' }]) });
    const fan = new ParallelAgent({ name: 'fan', subAgents: [a, b] });
    await new Runner({ agent: fan }).run({ input: 'go' }).invocation;
    const all = await spans();
    const workflow = named(all, 'invoke_workflow fan')[0];
    expect(workflow.attributes['agentctl.agent.type']).toBe('parallel');
    expect(children(all, workflow).sort()).toEqual(['invoke_agent a', 'invoke_agent b']);
    for (const name of ['a', 'b']) {
      const agent = named(all, `invoke_agent ${name}`)[0];
      expect(agent.attributes['agentctl.branch']).toBe(`fan.${name}`);
      expect(children(all, agent)).toEqual(['chat offline']);
    }
  });

  it('gives each pass of a loop its own agent span under the loop', async () => {
    const spans = tracedSpans();
    const step = createAgent({ name: 'step', provider: scriptedModel([{ text: 'one' }, { text: 'two' }]) });
    const loop = new LoopAgent({ name: 'again', subAgents: [step], maxIterations: 2 });
    await new Runner({ agent: loop }).run({ input: 'go' }).invocation;
    const all = await spans();
    const workflow = named(all, 'invoke_workflow again')[0];
    expect(children(all, workflow)).toEqual(['invoke_agent step', 'invoke_agent step']);
    const passes = named(all, 'invoke_agent step');
    expect(passes[0].spanContext().spanId).not.toBe(passes[1].spanContext().spanId);
  });

  it('makes one chat span per attempt of a call the retry middleware repeats, the failed one an error', async () => {
    const spans = tracedSpans();
    const agent = createAgent({
      name: 'steady',
      provider: scriptedModel([{ error: { message: 'overloaded', retryable: true } }, { text: 'made it' }]),
      middleware: [retry({ maxAttempts: 2, initialDelay: 1 })],
    });
    expect((await new Runner({ agent }).run({ input: 'go' }).invocation).output).toBe('made it');
    const all = await spans();
    const chats = named(all, 'chat offline');
    expect(children(all, named(all, 'invoke_agent steady')[0])).toEqual(['chat offline', 'chat offline']);
    expect(chats.map((c) => c.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
    expect(chats[0].attributes['error.type']).toBe('PROVIDER_ERROR');
  });

  it('ends a call waiting for approval as paused, and the resumed invocation traces the call', async () => {
    const spans = tracedSpans();
    const refund = defineTool<{ order: string }>({
      name: 'refund',
      description: 'Refunds an order',
      parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
      needsApproval: true,
      execute: ({ order }) => `refunded ${order}`,
    });
    const clerk = createAgent({
      name: 'clerk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
        { text: 'refund done' },
      ]),
      tools: [refund],
    });
    const store = new InMemorySessionStore();
    const paused = await new Runner({ agent: clerk, store }).run({ input: 'refund A1', sessionId: 's' })
      .invocation;
    expect(paused.status).toBe('paused');
    const first = await spans();
    const waiting = named(first, 'execute_tool refund')[0];
    expect(waiting.attributes['agentctl.run.status']).toBe('paused');
    expect(waiting.status.code).toBe(SpanStatusCode.UNSET);
    expect(named(first, 'invocation clerk')[0].attributes['agentctl.run.status']).toBe('paused');
    await new Runner({ agent: clerk, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    const resumed = (await spans()).slice(first.length);
    const invocation = named(resumed, 'invocation clerk')[0];
    expect(invocation.attributes['agentctl.run.status']).toBe('complete');
    expect(invocation.attributes['gen_ai.conversation.id']).toBe('s');
    const ran = named(resumed, 'execute_tool refund')[0];
    expect(ran.attributes['gen_ai.tool.call.id']).toBe('r1');
    expect(ran.attributes).not.toHaveProperty('agentctl.run.status');
  });

  it('ends a denied call as refused, not as a tool that failed: it never ran', async () => {
    const spans = tracedSpans();
    const refund = defineTool<{ order: string }>({
      name: 'refund',
      description: 'Refunds an order',
      parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
      needsApproval: true,
      execute: ({ order }) => `refunded ${order}`,
    });
    const clerk = createAgent({
      name: 'clerk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] },
        { text: 'not refunded' },
      ]),
      tools: [refund],
    });
    const store = new InMemorySessionStore();
    await new Runner({ agent: clerk, store }).run({ input: 'refund A1', sessionId: 's' }).invocation;
    const first = await spans();
    await new Runner({ agent: clerk, store }).resume({
      sessionId: 's',
      decisions: [{ callId: 'r1', approve: false, reason: 'not today' }],
    }).invocation;
    const denied = named((await spans()).slice(first.length), 'execute_tool refund')[0];
    expect(denied.attributes['gen_ai.tool.call.id']).toBe('r1');
    expect(denied.attributes['agentctl.run.status']).toBe('refused');
    expect(denied.status.code).toBe(SpanStatusCode.UNSET);
    expect(denied.attributes).not.toHaveProperty('error.type');
  });

  it('scrubs every recorded text with the scrubber it is given', async () => {
    const spans = tracedSpans({ captureContent: true, scrub: (text) => text.replaceAll('hunter2', '***') });
    const echo = defineTool<{ text: string }>({
      name: 'echo',
      description: 'Echoes',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: ({ text }) => `you said ${text}`,
    });
    const agent = createAgent({
      name: 'parrot',
      instruction: 'The password is hunter2.',
      provider: scriptedModel([
        { toolCalls: [{ name: 'echo', arguments: { text: 'hunter2' }, id: 'e1' }] },
        { text: 'said hunter2' },
      ]),
      tools: [echo],
    });
    await new Runner({ agent }).run({ input: 'repeat hunter2' }).invocation;
    const all = await spans();
    expect(JSON.stringify(all.map((s) => s.attributes))).not.toContain('hunter2');
    const tool = named(all, 'execute_tool echo')[0];
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('you said ***');
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ text: '***' });
  });
});
