// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} interpolation under test.
import { describe, expect, it } from 'vitest';
import { interpolate, MissingEnvError, parseDotenv, parseDuration, renderInstruction } from '../src/index.js';

describe('interpolation', () => {
  const env = { A: 'alpha', EMPTY: '' };

  it('replaces ${VAR}, ${VAR:-default} and ${VAR:?message}', () => {
    expect(interpolate('x ${A} y', env)).toBe('x alpha y');
    expect(interpolate('${MISSING}', env)).toBe('');
    expect(interpolate('${MISSING:-fallback}', env)).toBe('fallback');
    expect(interpolate('${EMPTY:-fallback}', env)).toBe('fallback');
    expect(interpolate('${A:-fallback}', env)).toBe('alpha');
    expect(interpolate('${A:?needed}', env)).toBe('alpha');
    expect(interpolate('cost $$5 and $HOME', env)).toBe('cost $5 and $HOME');
  });

  it('throws a MissingEnvError naming the variable and never a value', () => {
    expect(() => interpolate('${KEY:?set it in .env}', env)).toThrow(
      new MissingEnvError('KEY', 'environment variable KEY is not set: set it in .env'),
    );
    expect(() => interpolate('${EMPTY:?}', env)).toThrow('environment variable EMPTY is not set');
  });

  it('reports substituted values so callers can treat them as secrets', () => {
    const seen: string[] = [];
    interpolate('${A}${MISSING:-d}', env, (v) => seen.push(v));
    expect(seen).toEqual(['alpha']);
  });
});

describe('.env', () => {
  it('parses KEY=VALUE with quotes, comments and export', () => {
    const text =
      '# c\nexport A=1\nB = two words # trailing\nC="q \\"x\\"\\nline"\nD=\'$raw #not comment\'\nbad line\nE=\n';
    expect(parseDotenv(text)).toEqual({
      A: '1',
      B: 'two words',
      C: 'q "x"\nline',
      D: '$raw #not comment',
      E: '',
    });
  });
});

describe('durations and instruction templates', () => {
  it('parses durations', () => {
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('300ms')).toBe(300);
    expect(() => parseDuration('soon')).toThrow(/not a duration/);
  });

  it('renders known paths only and never runs code', () => {
    const ctx = { agent: 'bot', input: 'hi', state: { user: { name: 'Ada' }, list: [1, 2] } };
    const now = () => new Date('2026-01-02T03:04:05Z');
    expect(
      renderInstruction(
        '{{ agent.name }}/{{ input }}/{{ state.user.name }}/{{ state.list }}/{{ date }}',
        ctx,
        now,
      ),
    ).toBe('bot/hi/Ada/[1,2]/2026-01-02');
    expect(
      renderInstruction(
        '{{ state.missing.x }}|{{ constructor }}|{{ state.__proto__ }}|{{ process.exit() }}',
        ctx,
        now,
      ),
    ).toBe('|||');
  });
});
