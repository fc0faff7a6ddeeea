import { afterEach, describe, expect, it, vi } from 'vitest';
import { newSpanId, newTraceId } from '../src/span-ids.js';

afterEach(() => {
  vi.restoreAllMocks();
});

// W3C Trace Context ids: lowercase hex of the right length, never all zeros, and distinct.
describe('span and trace ids', () => {
  it('are 16 and 32 lowercase hex digits, every digit in use, all distinct', () => {
    // More ids than one pool holds: they go on being distinct across refills.
    const spans = Array.from({ length: 2000 }, newSpanId);
    const traces = Array.from({ length: 500 }, newTraceId);
    for (const id of spans) expect(id).toMatch(/^[0-9a-f]{16}$/);
    for (const id of traces) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set([...spans, ...traces]).size).toBe(spans.length + traces.length);
    // Every hex digit appears in every position of some id.
    for (let at = 0; at < 16; at++) expect(new Set(spans.map((id) => id[at])).size).toBe(16);
  });

  it('is never all zeros, even when the random source gives zeros', () => {
    // A pool (512 span ids) is seeded with four words from Math.random: the next refill is seeded
    // with zeros only, so every digit of it is a zero, and every id cut from it is skipped; the
    // refill after it is random again.
    const random = Math.random;
    let zeros = 0;
    vi.spyOn(Math, 'random').mockImplementation(() => (zeros-- > 0 ? 0 : random()));
    zeros = 4;
    const spans = Array.from({ length: 600 }, newSpanId);
    expect(zeros).toBeLessThan(0);
    zeros = 4;
    const traces = Array.from({ length: 300 }, newTraceId);
    expect(zeros).toBeLessThan(0);
    for (const id of traces) expect(id).not.toMatch(/^0+$/);
    for (const id of spans) expect(id).not.toMatch(/^0+$/);
  });
});
