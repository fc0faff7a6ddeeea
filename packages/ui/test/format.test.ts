import { describe, expect, it } from 'vitest';
import { visibleText } from '../src/format.js';

describe('visibleText', () => {
  it('writes out control characters and bidi overrides, and keeps tabs, line breaks and other scripts', () => {
    expect(visibleText('\u001b[31mred\u001b[0m')).toBe('\\u001b[31mred\\u001b[0m');
    expect(visibleText('rm -rf ~/\u202Etxt.exe')).toBe('rm -rf ~/\\u202etxt.exe');
    expect(visibleText('a\u2066b\u2069\u0000\u0085\u007f')).toBe('a\\u2066b\\u2069\\u0000\\u0085\\u007f');
    expect(visibleText('one\ttwo\r\nthree ünïcødé שלום')).toBe('one\ttwo\r\nthree ünïcødé שלום');
  });
});
