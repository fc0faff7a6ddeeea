import { describe, expect, it } from 'vitest';
import { jsonChunks } from '../src/index.js';

const value = {
  id: 's',
  left: undefined,
  fn: () => 1,
  when: new Date(0),
  state: { nested: { list: [1, { a: 'two\nlines' }], empty: {} }, none: [] },
  events: [{ type: 'message', text: 'hi' }, undefined, [], {}, { deep: { list: [1, 2] } }],
  empty: [],
};

describe('jsonChunks', () => {
  it.each([0, 2])('writes what JSON.stringify writes with space %i, split parts and all', (space) => {
    const split = (key: string | number) =>
      key === 'events' || key === 'state' || key === 4 || key === 'deep';
    expect([...jsonChunks(value, { space, split })].join('')).toBe(JSON.stringify(value, null, space));
    expect([...jsonChunks(value, { space, split: () => false })].join('')).toBe(
      JSON.stringify(value, null, space),
    );
    expect([...jsonChunks([], { space, split })].join('')).toBe('[]');
    expect([...jsonChunks({}, { space, split })].join('')).toBe('{}');
    expect([...jsonChunks('text', { space, split })].join('')).toBe('"text"');
  });

  it('asks split with the key of the part and of the part holding it', () => {
    const asked: [string | number, string | number | undefined][] = [];
    [
      ...jsonChunks(value, {
        split: (key, parentKey) => {
          asked.push([key, parentKey]);
          return key === 'events';
        },
      }),
    ];
    expect(asked).toEqual([
      ['state', undefined],
      ['events', undefined],
      [0, 'events'],
      [2, 'events'],
      [3, 'events'],
      [4, 'events'],
      ['empty', undefined],
    ]);
  });

  it('gives chunks of about a megabyte, not a piece per member', () => {
    const events = Array.from({ length: 30_000 }, (_, i) => ({ i, text: 'x'.repeat(100) }));
    const chunks = [...jsonChunks({ events }, { split: (key) => key === 'events' })];
    expect(chunks.join('')).toBe(JSON.stringify({ events }));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.slice(0, -1).every((c) => c.length >= 1 << 20)).toBe(true);
  });
});
