import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import { defaultResource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AttributesRecord } from '../src/attributes-record.js';
import { type ChatFacts, chatAnswer } from '../src/chat-facts.js';
import { ChatRecord } from '../src/chat-record.js';
import type { SpanRecord } from '../src/span-record.js';
import { ToolRecord } from '../src/tool-record.js';

// A record keeps its clock readings as microseconds since an epoch it shares with the records of
// ten minutes; the times it reports must stay the clock's, across a change of epoch too.

afterEach(() => {
  vi.restoreAllMocks();
});

const ended: ReadableSpan[] = [];
const target = {
  processor: {
    onStart: () => undefined,
    onEnd: (span: ReadableSpan) => void ended.push(span),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  },
  resource: defaultResource(),
  scope: { name: 'test' },
};

const epochMs = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;

function recordBetween(startMs: number, endMs: number): SpanRecord {
  const now = vi.spyOn(performance, 'now').mockReturnValue(startMs);
  const record = new AttributesRecord(
    target,
    'step',
    SpanKind.INTERNAL,
    {},
    'a'.repeat(32),
    'b'.repeat(16),
    undefined,
  );
  now.mockReturnValue(endMs);
  record.end();
  return record;
}

describe('SpanRecord times', () => {
  it('reports the clock readings as epoch times, to the microsecond, before and after a new epoch', () => {
    const base = performance.now();
    // The second record starts eleven minutes later: past the ten minutes an epoch serves.
    for (const [start, end] of [
      [base + 1.5, base + 4.25],
      [base + 660_000.5, base + 660_003.75],
    ]) {
      const record = recordBetween(start, end);
      expect(epochMs(record.startTime)).toBeCloseTo(performance.timeOrigin + start, 2);
      expect(epochMs(record.endTime)).toBeCloseTo(performance.timeOrigin + end, 2);
      expect(epochMs(record.duration)).toBeCloseTo(end - start, 3);
      expect(record.ended).toBe(true);
    }
    expect(ended).toHaveLength(2);
  });

  it('ends once: a second end neither moves its end nor hands it over again', () => {
    const before = ended.length;
    const record = recordBetween(performance.now(), performance.now() + 2);
    const end = record.endTime;
    vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 50);
    record.end();
    record.setAttribute('late', 1);
    expect(record.endTime).toEqual(end);
    expect(record.attributes).not.toHaveProperty('late');
    expect(ended.length - before).toBe(1);
  });
});

const facts: ChatFacts = {
  provider: 'openai',
  requestModel: 'm',
  agent: 'clerk',
  conversationId: 's1',
  temperature: 0.2,
  topP: undefined,
  maxTokens: undefined,
  system: undefined,
  input: undefined,
};

describe('SpanRecord attributes', () => {
  it('are made when read: what the span started with, what was set on it, and nothing after its end', () => {
    const record = new AttributesRecord(
      target,
      'invocation clerk',
      SpanKind.INTERNAL,
      { 'gen_ai.agent.name': 'clerk', 'agentctl.run.status': 'started' },
      'a'.repeat(32),
      'c'.repeat(16),
      undefined,
    );
    record.setAttribute('agentctl.run.status', 'complete');
    record.setAttribute('agentctl.usage.input_tokens', 3);
    record.end();
    record.setAttribute('later', 1);
    const expected = {
      'gen_ai.agent.name': 'clerk',
      'agentctl.run.status': 'complete',
      'agentctl.usage.input_tokens': 3,
    };
    expect(record.attributes).toEqual(expected);
    // Read twice (the processor and the exporter may both read them): the same object.
    expect(record.attributes).toBe(record.attributes);
    expect(ended.at(-1)).toBe(record);
  });

  it("of a chat are the request's facts and, once answered, the answer's; a second answer changes nothing", () => {
    const record = new ChatRecord(target, 'chat m', facts, 'a'.repeat(32), 'd'.repeat(16), undefined);
    expect(record.kind).toBe(SpanKind.CLIENT);
    expect(record.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'm',
      'gen_ai.agent.name': 'clerk',
      'gen_ai.conversation.id': 's1',
      'gen_ai.request.temperature': 0.2,
    });
    const response = {
      message: { role: 'assistant' as const, content: 'hi' },
      model: 'm-2025',
      finishReason: 'stop' as const,
      usage: { inputTokens: 10, outputTokens: 4, cacheReadTokens: 6 },
    };
    record.answer(chatAnswer(response, 'm', undefined));
    record.answer(chatAnswer({ ...response, model: 'other' }, 'm', undefined));
    expect(record.ended).toBe(true);
    expect(record.attributes).toMatchObject({
      'gen_ai.response.model': 'm-2025',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 16,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.usage.cache_read.input_tokens': 6,
      'gen_ai.usage.cache_creation.input_tokens': 0,
    });
    expect(ended.filter((span) => span === record)).toHaveLength(1);
  });
});

describe('ToolRecord times', () => {
  const tool = { toolName: 'lookup', callId: 'c1', args: undefined };

  it('ends as having run as long as the runtime timed the call, up to the end', () => {
    const end = performance.now() + 1000;
    vi.spyOn(performance, 'now').mockReturnValue(end);
    const record = new ToolRecord(
      target,
      'execute_tool lookup',
      tool,
      Date.now(),
      'a'.repeat(32),
      'e'.repeat(16),
      undefined,
    );
    record.endAfter(12.5);
    expect(epochMs(record.endTime)).toBeCloseTo(performance.timeOrigin + end, 2);
    expect(epochMs(record.startTime)).toBeCloseTo(performance.timeOrigin + end - 12.5, 2);
    expect(epochMs(record.duration)).toBeCloseTo(12.5, 3);
    expect(record.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
    });
  });

  it('starts when the call was made when it ends without a result', () => {
    const calledAt = Date.now() - 40;
    const record = new ToolRecord(
      target,
      'execute_tool lookup',
      tool,
      calledAt,
      'a'.repeat(32),
      'f'.repeat(16),
      undefined,
    );
    record.end();
    expect(epochMs(record.startTime)).toBeCloseTo(calledAt, 0);
    expect(epochMs(record.duration)).toBeGreaterThanOrEqual(39);
  });
});
