import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import { defaultResource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SpanRecord } from '../src/span-record.js';

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
  const record = new SpanRecord(
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

describe('SpanRecord attributes', () => {
  it('reports those it started with, those set on it and those it ended with (the last winning), and nothing after', () => {
    const record = new SpanRecord(
      target,
      'chat m',
      SpanKind.CLIENT,
      { 'gen_ai.request.model': 'm', 'gen_ai.response.model': 'asked' },
      'a'.repeat(32),
      'c'.repeat(16),
      undefined,
    );
    record.setAttribute('agentctl.run.status', 'running');
    record.end({ 'gen_ai.response.model': 'served', 'gen_ai.usage.output_tokens': 9 });
    record.end({ 'gen_ai.usage.output_tokens': 1, late: true });
    record.setAttribute('later', 1);
    const expected = {
      'gen_ai.request.model': 'm',
      'gen_ai.response.model': 'served',
      'agentctl.run.status': 'running',
      'gen_ai.usage.output_tokens': 9,
    };
    expect(record.attributes).toEqual(expected);
    // Read twice (the processor and the exporter may both read them): the same.
    expect(record.attributes).toEqual(expected);
    expect(ended.at(-1)).toBe(record);
  });
});
