import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import {
  type Context,
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
} from '@opentelemetry/api';
import { defaultResource } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ChatFacts, chatAnswer } from '../src/chat-facts.js';
import { type BatchSettings, batchSettings, SpanBatcher } from '../src/span-batcher.js';
import { TableSink } from '../src/table-sink.js';

// agentctl's own batch processor: a model call's and a tool call's spans are rows of a table until
// their batch is exported, then spans the exporter reads; batches go at their size, after the
// scheduled delay or on a flush, one export at a time, and spans beyond the queue are dropped.

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const SUPPRESSED = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

// An application's context manager, as its SDK registers one (without one, contexts are not kept).
function registerContextManager(): () => void {
  const storage = new AsyncLocalStorage<Context>();
  context.setGlobalContextManager({
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  });
  return () => context.disable();
}

interface Exported {
  batches: ReadableSpan[][];
  suppressed: boolean[];
  shutdowns: number;
  /** Called back later, when set: the exports in flight, in order. */
  held?: Array<() => void>;
  result?: { code: number; error?: Error };
}

function exporterOf(exported: Exported) {
  return {
    export(spans: ReadableSpan[], done: (result: { code: number; error?: Error }) => void) {
      exported.batches.push(spans);
      exported.suppressed.push(context.active().getValue(SUPPRESSED) === true);
      const finish = () => done(exported.result ?? { code: 0 });
      if (exported.held) exported.held.push(finish);
      else finish();
    },
    async shutdown() {
      exported.shutdowns++;
    },
  };
}

function setUp(settings: Partial<BatchSettings> = {}, sampler = new AlwaysOnSampler()) {
  const exported: Exported = { batches: [], suppressed: [], shutdowns: 0 };
  const batcher = new SpanBatcher(
    exporterOf(exported),
    defaultResource(),
    { name: 'test' },
    { ...batchSettings({}), ...settings },
  );
  const sink = new TableSink(batcher, sampler);
  const agent = sink.start(
    'invoke_agent clerk',
    SpanKind.INTERNAL,
    { 'gen_ai.agent.name': 'clerk' },
    undefined,
  );
  const spans = () => exported.batches.flat();
  return { exported, batcher, sink, agent, spans };
}

const facts: ChatFacts = {
  provider: 'openai',
  requestModel: 'm',
  agent: 'clerk',
  conversationId: 's1',
  temperature: 0.2,
  topP: undefined,
  maxTokens: 100,
  system: undefined,
  input: undefined,
};
const response = {
  message: { role: 'assistant' as const, content: 'hi' },
  model: 'm-2025',
  finishReason: 'stop' as const,
  usage: { inputTokens: 10, outputTokens: 4, cacheReadTokens: 6 },
};
const tool = { toolName: 'lookup', callId: 'c1', args: undefined };
const epochMs = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;

function toolSpans(sink: TableSink, parent: ReturnType<TableSink['start']>, count: number): void {
  for (let i = 0; i < count; i++)
    sink.startTool('execute_tool lookup', { ...tool, callId: `c${i}` }, Date.now(), parent).endAfter(1);
}

describe('SpanBatcher and its table', () => {
  it("exports a chat span with the request's and the answer's attributes, under its parent, answered once", async () => {
    const { batcher, sink, agent, spans } = setUp();
    // The span's times are the runtime's clock readings it is given: it reads none of its own.
    const base = performance.now();
    const now = vi.spyOn(performance, 'now');
    const chat = sink.startChat('chat m', facts, base + 1, agent);
    chat.answer(chatAnswer(response, 'm', undefined), base + 26.5);
    chat.answer(chatAnswer({ ...response, model: 'other' }, 'm', undefined), base + 40);
    chat.setAttribute('late', 1);
    expect(now).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    await batcher.forceFlush();
    const [span] = spans();
    expect(spans()).toHaveLength(1);
    expect(span).toMatchObject({ name: 'chat m', kind: SpanKind.CLIENT, ended: true });
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'm',
      'gen_ai.agent.name': 'clerk',
      'gen_ai.conversation.id': 's1',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 100,
      'gen_ai.response.model': 'm-2025',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 16,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.usage.cache_read.input_tokens': 6,
      'gen_ai.usage.cache_creation.input_tokens': 0,
    });
    expect(epochMs(span?.startTime as [number, number])).toBeCloseTo(performance.timeOrigin + base + 1, 2);
    expect(epochMs(span?.duration as [number, number])).toBeCloseTo(25.5, 3);
    const parent = (agent as unknown as ReadableSpan).spanContext();
    expect(span?.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(span?.spanContext().traceId).toBe(parent.traceId);
    expect(span?.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('exports a failed chat with the request only, its error and status; a tool as long as the runtime timed it', async () => {
    const { batcher, sink, agent, spans } = setUp();
    const chat = sink.startChat(
      'chat m',
      { ...facts, temperature: undefined, maxTokens: undefined },
      performance.now(),
      agent,
    );
    chat.setAttribute('error.type', 'PROVIDER_ERROR');
    chat.setStatus({ code: SpanStatusCode.ERROR, message: 'down' });
    chat.end();
    const end = performance.now() + 1000;
    vi.spyOn(performance, 'now').mockReturnValue(end);
    const call = sink.startTool('execute_tool lookup', tool, Date.now(), agent);
    call.setAttribute('gen_ai.tool.call.result', 'found');
    call.endAfter(12.5);
    vi.restoreAllMocks();
    const unfinished = sink.startTool(
      'execute_tool lookup',
      { ...tool, callId: 'c2' },
      Date.now() - 40,
      agent,
    );
    unfinished.setAttribute('agentctl.run.status', 'paused');
    unfinished.end();
    await batcher.forceFlush();
    const [failed, timed, paused] = spans();
    expect(failed?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'm',
      'gen_ai.agent.name': 'clerk',
      'gen_ai.conversation.id': 's1',
      'error.type': 'PROVIDER_ERROR',
    });
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'down' });
    expect(timed?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.result': 'found',
    });
    expect(timed?.kind).toBe(SpanKind.INTERNAL);
    expect(epochMs(timed?.endTime as [number, number])).toBeCloseTo(performance.timeOrigin + end, 2);
    expect(epochMs(timed?.duration as [number, number])).toBeCloseTo(12.5, 3);
    expect(timed?.status.code).toBe(SpanStatusCode.UNSET);
    expect(paused?.attributes['agentctl.run.status']).toBe('paused');
    expect(epochMs(paused?.duration as [number, number])).toBeGreaterThanOrEqual(39);
  });

  it('exports each full batch as it fills, the rest after the scheduled delay, out of any tracing', async () => {
    vi.useFakeTimers();
    const unregister = registerContextManager();
    const { exported, sink, agent } = setUp({ maxExportBatchSize: 4, scheduledDelayMillis: 1000 });
    toolSpans(sink, agent, 5);
    await vi.advanceTimersByTimeAsync(0);
    expect(exported.batches.map((b) => b.length)).toEqual([4]);
    await vi.advanceTimersByTimeAsync(999);
    expect(exported.batches.map((b) => b.length)).toEqual([4]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exported.batches.map((b) => b.length)).toEqual([4, 1]);
    expect(exported.batches[0]?.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
    ]);
    // The export's own requests are not traced by an application's instrumentation.
    expect(exported.suppressed).toEqual([true, true]);
    unregister();
  });

  it('exports one batch at a time and drops the spans the queue has no room for', async () => {
    const { exported, batcher, sink, agent, spans } = setUp({ maxExportBatchSize: 4, maxQueueSize: 8 });
    exported.held = [];
    toolSpans(sink, agent, 20);
    // One batch in flight and one waiting fill the queue; the table's 4 wait for room; 8 dropped.
    expect(exported.batches).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(() => expect(exported.held).toHaveLength(i + 1));
      exported.held[i]?.();
    }
    await batcher.forceFlush();
    expect(exported.batches.map((b) => b.length)).toEqual([4, 4, 4]);
    expect(spans().map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
      'c5',
      'c6',
      'c7',
      'c8',
      'c9',
      'c10',
      'c11',
    ]);
  });

  it('reports a failed export at the next flush, and one that never answers after the export timeout', async () => {
    const { exported, batcher, sink, agent } = setUp({ exportTimeoutMillis: 50 });
    exported.result = { code: 1, error: new Error('collector said no') };
    toolSpans(sink, agent, 1);
    await expect(batcher.forceFlush()).rejects.toThrow('collector said no');
    exported.result = undefined;
    toolSpans(sink, agent, 1);
    await expect(batcher.forceFlush()).resolves.toBeUndefined();
    exported.held = [];
    toolSpans(sink, agent, 1);
    await expect(batcher.forceFlush()).rejects.toThrow('span export timed out after 50 ms');
  });

  it('exports what is left at shutdown, shuts the exporter down once, and records nothing after', async () => {
    const { exported, batcher, sink, agent, spans } = setUp();
    toolSpans(sink, agent, 2);
    await batcher.shutdown();
    await batcher.shutdown();
    toolSpans(sink, agent, 2);
    await batcher.forceFlush();
    expect(spans()).toHaveLength(2);
    expect(exported.shutdowns).toBe(1);
  });

  it('gives up on the batches still waiting once an export fails at shutdown, rather than try each in turn', async () => {
    const { exported, batcher, sink, agent } = setUp({ maxExportBatchSize: 4 });
    exported.held = [];
    exported.result = { code: 1, error: new Error('connect ECONNREFUSED 127.0.0.1:9') };
    // One batch in flight (the collector is down), two waiting, two spans in the table.
    toolSpans(sink, agent, 14);
    expect(exported.batches).toHaveLength(1);
    const closing = batcher.shutdown();
    exported.held[0]?.();
    await expect(closing).rejects.toThrow(
      'connect ECONNREFUSED 127.0.0.1:9 (and 10 more span(s) were dropped without trying)',
    );
    expect(exported.batches).toHaveLength(1);
    expect(exported.shutdowns).toBe(1);
  });

  it('does not wait past the export timeout for an exporter whose shutdown waits on a request in flight', async () => {
    const exported: Exported = { batches: [], suppressed: [], shutdowns: 0, held: [] };
    const batcher = new SpanBatcher(
      { export: exporterOf(exported).export, shutdown: () => new Promise<void>(() => {}) },
      defaultResource(),
      { name: 'test' },
      { ...batchSettings({}), exportTimeoutMillis: 50 },
    );
    const sink = new TableSink(batcher, new AlwaysOnSampler());
    toolSpans(sink, sink.start('invoke_agent clerk', SpanKind.INTERNAL, {}, undefined), 1);
    await expect(batcher.shutdown()).rejects.toThrow('span export timed out after 50 ms');
  });

  it('stops waiting at shutdown when told to, dropping every span not exported and saying how many and why', async () => {
    const { exported, batcher, sink, agent } = setUp({ maxExportBatchSize: 4 });
    // One batch in flight that never ends (a collector that hangs), two waiting, two in the table.
    exported.held = [];
    toolSpans(sink, agent, 14);
    const stop = new AbortController();
    const closing = batcher.shutdown(stop.signal);
    stop.abort(new Error('the collector did not answer within 2000 ms'));
    await expect(closing).rejects.toThrow('14 span(s) dropped: the collector did not answer within 2000 ms');
    // Nothing more was tried, and the exporter's own shutdown (which would wait) was not awaited.
    expect(exported.batches).toHaveLength(1);
    expect(exported.shutdowns).toBe(0);
  });

  it('does not try at all with a stop given already stopped (a collector known to refuse)', async () => {
    const { exported, batcher, sink, agent } = setUp();
    toolSpans(sink, agent, 3);
    const stop = new AbortController();
    stop.abort(new Error('the collector refused the connection'));
    await expect(batcher.shutdown(stop.signal)).rejects.toThrow(
      '3 span(s) dropped: the collector refused the connection',
    );
    expect(exported.batches).toEqual([]);
  });

  it('a stop once everything was exported changes nothing', async () => {
    const { batcher, sink, agent, spans } = setUp();
    toolSpans(sink, agent, 3);
    const stop = new AbortController();
    await batcher.shutdown(stop.signal);
    stop.abort(new Error('late'));
    expect(spans()).toHaveLength(3);
  });

  it('still tries every batch at shutdown after an export failed earlier (the collector may be back)', async () => {
    const { exported, batcher, sink, agent, spans } = setUp({ maxExportBatchSize: 4 });
    exported.result = { code: 1, error: new Error('collector restarting') };
    toolSpans(sink, agent, 4);
    await vi.waitFor(() => expect(exported.batches).toHaveLength(1));
    exported.result = undefined;
    toolSpans(sink, agent, 10);
    await expect(batcher.shutdown()).rejects.toThrow('collector restarting');
    expect(spans()).toHaveLength(14);
  });

  it('records nothing of a sampled-out trace', async () => {
    const { batcher, sink, agent, spans } = setUp({}, new AlwaysOffSampler());
    const chat = sink.startChat('chat m', facts, performance.now(), agent);
    chat.answer(chatAnswer(response, 'm', undefined), performance.now());
    toolSpans(sink, agent, 1);
    agent.end();
    await batcher.forceFlush();
    expect(spans()).toEqual([]);
  });
});

describe('batchSettings', () => {
  it('reads the OTEL_BSP_* variables, ignores what is not a number, keeps the batch within the queue', () => {
    expect(batchSettings({})).toEqual({
      maxExportBatchSize: 512,
      maxQueueSize: 2048,
      scheduledDelayMillis: 5000,
      exportTimeoutMillis: 30000,
    });
    expect(
      batchSettings({
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4096',
        OTEL_BSP_MAX_QUEUE_SIZE: ' 1000 ',
        OTEL_BSP_SCHEDULE_DELAY: '0',
        OTEL_BSP_EXPORT_TIMEOUT: 'soon',
      }),
    ).toEqual({
      maxExportBatchSize: 1000,
      maxQueueSize: 1000,
      scheduledDelayMillis: 0,
      exportTimeoutMillis: 30000,
    });
  });
});
