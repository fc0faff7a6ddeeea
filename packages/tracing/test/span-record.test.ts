import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import { defaultResource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SpanRecord } from '../src/span-record.js';

// The records of an invocation's and an agent's spans: their times are clock readings, reported
// as the SDK's [seconds, nanoseconds]; their attributes are those they started with and were set.

afterEach(() => {
  vi.restoreAllMocks();
});

const ended: ReadableSpan[] = [];
const target = {
  onEnd: (span: ReadableSpan) => void ended.push(span),
  resource: defaultResource(),
  scope: { name: 'test' },
};

const epochMs = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;

function record(attributes = {}): SpanRecord {
  return new SpanRecord(
    target,
    'step',
    SpanKind.INTERNAL,
    attributes,
    'a'.repeat(32),
    'b'.repeat(16),
    undefined,
  );
}

describe('SpanRecord', () => {
  it('reports its clock readings as epoch times, to the microsecond', () => {
    const base = performance.now();
    const now = vi.spyOn(performance, 'now').mockReturnValue(base + 1.5);
    const span = record();
    now.mockReturnValue(base + 660_004.25);
    span.end();
    expect(epochMs(span.startTime)).toBeCloseTo(performance.timeOrigin + base + 1.5, 2);
    expect(epochMs(span.endTime)).toBeCloseTo(performance.timeOrigin + base + 660_004.25, 2);
    expect(epochMs(span.duration)).toBeCloseTo(660_002.75, 3);
    expect(span.ended).toBe(true);
    expect(ended.at(-1)).toBe(span);
  });

  it('ends once: a second end neither moves its end nor hands it over again', () => {
    const before = ended.length;
    const span = record();
    span.end();
    const end = span.endTime;
    vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 50);
    span.end();
    span.setAttribute('late', 1);
    span.setStatus({ code: 2 });
    span.addEvent('late', {});
    expect(span.endTime).toEqual(end);
    expect(span.attributes).not.toHaveProperty('late');
    expect(span.status.code).toBe(0);
    expect(span.events).toEqual([]);
    expect(ended.length - before).toBe(1);
  });

  it('has the attributes it started with and those set before its end', () => {
    const span = record({ 'gen_ai.agent.name': 'clerk', 'agentctl.run.status': 'started' });
    span.setAttribute('agentctl.run.status', 'complete');
    span.setAttribute('agentctl.usage.input_tokens', 3);
    span.addEvent('transfer', { 'agentctl.transfer.to': 'billing' });
    span.end();
    expect(span.attributes).toEqual({
      'gen_ai.agent.name': 'clerk',
      'agentctl.run.status': 'complete',
      'agentctl.usage.input_tokens': 3,
    });
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      ['transfer', { 'agentctl.transfer.to': 'billing' }],
    ]);
    expect(span.spanContext()).toMatchObject({
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      traceFlags: 1,
    });
  });
});
