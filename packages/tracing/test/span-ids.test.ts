import { describe, expect, it } from 'vitest';
import { newSpanId, newTraceId } from '../src/span-ids.js';

// W3C Trace Context ids: lowercase hex of the right length, never all zeros, and distinct.
describe('span and trace ids', () => {
  it('are 16 and 32 lowercase hex digits, every digit in use, all distinct', () => {
    const spans = Array.from({ length: 2000 }, newSpanId);
    const traces = Array.from({ length: 500 }, newTraceId);
    for (const id of spans) expect(id).toMatch(/^[0-9a-f]{16}$/);
    for (const id of traces) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(spans).size).toBe(spans.length);
    expect(new Set(traces).size).toBe(traces.length);
    // Every hex digit appears in every position of some id: the table covers all sixteen.
    for (let at = 0; at < 16; at++) expect(new Set(spans.map((id) => id[at])).size).toBe(16);
  });

  it('is never all zeros, even when the random source gives zeros', () => {
    const random = Math.random;
    Math.random = () => 0;
    try {
      expect(newSpanId()).toBe('0000000000000001');
      expect(newTraceId()).not.toMatch(/^0+$/);
    } finally {
      Math.random = random;
    }
  });
});
