import { describe, expect, it } from 'vitest';
import { parseDuration } from '../src/duration.js';

describe('parseDuration', () => {
  it('reads units into whole milliseconds', () => {
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1.5ms')).toBe(2);
    expect(parseDuration(' 30 s ')).toBe(30_000);
    expect(parseDuration(250)).toBe(250);
  });

  it('keeps a duration written above zero above zero, and zero at zero', () => {
    expect(parseDuration('0.4ms')).toBe(1);
    expect(parseDuration('0.0001s')).toBe(1);
    expect(parseDuration('0s')).toBe(0);
    expect(parseDuration('0.0ms')).toBe(0);
  });

  it('names the field of a value that is not a duration', () => {
    expect(() => parseDuration('soon', 'timeout')).toThrow('timeout: "soon" is not a duration');
  });
});
