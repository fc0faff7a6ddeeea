import { describe, expect, it } from 'vitest';
import { approvalRuleMatcher, boundedRegExp, RegExpTimeoutError, redactor } from '../src/index.js';

// `(a+)+$` on a run of a's that does not end the text backtracks about 2^n times.
const EVIL = /^(a+)+$/;
const TEXT = `${'a'.repeat(60)}!`;

describe('boundedRegExp', () => {
  it('matches as the expression does, from the start of each text', () => {
    const re = boundedRegExp(/ACME-\d+/g);
    expect(re.test('order ACME-12')).toBe(true);
    expect(re.test('order ACME-12')).toBe(true);
    expect(re.test('nothing')).toBe(false);
    expect(re.replace('ACME-1 and ACME-2', '#')).toBe('# and #');
  });

  it('stops an expression that backtracks without end, naming it', () => {
    const re = boundedRegExp(EVIL, 50);
    expect(() => re.test(TEXT)).toThrow(RegExpTimeoutError);
    expect(() => re.test(TEXT)).toThrow('/^(a+)+$/ ran for more than 0.05 s');
    // The next use has its whole budget again.
    expect(re.test('aaa')).toBe(true);
  });

  it('tests many texts within one budget', () => {
    expect(boundedRegExp(/^a+$/g).testEach(['aa', 'b', 'a'], 50)).toEqual([true, false, true]);
    expect(() => boundedRegExp(EVIL).testEach(['aa', TEXT], 50)).toThrow(RegExpTimeoutError);
  });
});

describe('where the project writes regular expressions', () => {
  it('a redaction pattern stopped on a text lets none of it through', () => {
    const redact = redactor({ builtins: false, patterns: [/(a+)+$/g] });
    expect(redact(TEXT)).toBe('[REDACTED]');
    expect(redact('bbb')).toBe('bbb');
  });

  it('an approval rule whose pattern is stopped denies and never allows', () => {
    const call = { id: 'c', name: 'write', arguments: { path: TEXT } };
    const rule = { tool: 'write', args: { path: '/^(a+)+$/' } };
    expect(approvalRuleMatcher(rule, 'rule', 'deny')(call)).toBe(true);
    expect(approvalRuleMatcher(rule, 'rule', 'allow')(call)).toBe(false);
  });

  it('the built-in e-mail pattern takes one pass over a long text with no address in it', () => {
    // Tried from every character of the run, 50 KB took 13 s and 200 KB minutes.
    const redact = redactor();
    const long = 'a'.repeat(200_000);
    expect(redact(long)).toBe(long);
    expect(redact('write to ann.lee@example.com, (bo+x@mail.example.org) or x@y.io.')).toBe(
      'write to [REDACTED], ([REDACTED]) or [REDACTED].',
    );
  });
});
