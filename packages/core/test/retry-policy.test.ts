import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AttemptControl,
  backoffDelay,
  classifyFailure,
  isConnectionError,
  isRetryableStatus,
  parseRetryAfter,
  retryAfterFromHeaders,
  retryPolicy,
  retryStream,
  sleep,
} from '../src/index.js';

const fast = retryPolicy({ maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 50 });

// An attempt that fails without yielding: the callback runs when the first item is asked for.
function failing(
  fail: (control: AttemptControl) => Promise<never> | never,
): (control: AttemptControl) => AsyncIterable<string> {
  return (control) => ({ [Symbol.asyncIterator]: () => ({ next: async () => fail(control) }) });
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('retry policy', () => {
  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('reads retry-after-ms before Retry-After, from Headers or a plain record', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '3', 'retry-after-ms': '120' }))).toBe(120);
    expect(retryAfterFromHeaders({ 'Retry-After': '1' })).toBe(1000);
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
  });

  it('retries 408, 409, 429 and 5xx only', () => {
    expect([408, 409, 429, 500, 502, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });

  it('recognises dropped connections, also through causes', () => {
    expect(isConnectionError(new TypeError('terminated'))).toBe(true);
    const wrapped = new Error('Connection error.', {
      cause: Object.assign(new Error('read'), { code: 'ECONNRESET' }),
    });
    expect(isConnectionError(wrapped)).toBe(true);
    expect(isConnectionError(new Error('bad json'))).toBe(false);
    expect(isConnectionError(new TypeError('x is not a function'))).toBe(false);
  });

  it('classifies SDK-shaped errors and AgentErrors', () => {
    const limited = { status: 429, headers: new Headers({ 'retry-after': '2' }) };
    expect(classifyFailure(limited)).toEqual({ retryable: true, status: 429, retryAfterMs: 2000 });
    expect(classifyFailure({ status: 401, headers: new Headers() })).toEqual({
      retryable: false,
      status: 401,
    });
    const agentError = new AgentError('x', 'PROVIDER_ERROR', { retryable: true, context: { status: 503 } });
    expect(classifyFailure(agentError)).toEqual({ retryable: true, status: 503 });
    expect(classifyFailure(new DOMException('aborted', 'AbortError')).retryable).toBe(false);
  });

  it('draws full-jitter backoff within the doubling ceiling and honours hints up to the maximum', () => {
    const policy = retryPolicy({ initialDelayMs: 100, maxDelayMs: 1000 });
    expect(backoffDelay(policy, 1, undefined, () => 0)).toBe(0);
    expect(backoffDelay(policy, 1, undefined, () => 0.999)).toBe(99);
    expect(backoffDelay(policy, 3, undefined, () => 0.999)).toBe(399);
    expect(backoffDelay(policy, 10, undefined, () => 0.999)).toBe(999);
    expect(backoffDelay(policy, 1, 700)).toBe(700);
    expect(backoffDelay(policy, 1, 5000)).toBeUndefined();
  });

  it('fills in defaults and clamps nonsense', () => {
    expect(retryPolicy()).toEqual({ maxAttempts: 3, initialDelayMs: 500, maxDelayMs: 30_000 });
    expect(retryPolicy({ maxAttempts: 0, initialDelayMs: -1 }).maxAttempts).toBe(1);
  });
});

describe('retryStream', () => {
  it('retries retryable failures before the first item, then succeeds', async () => {
    let attempts = 0;
    const out = await collect(
      retryStream(
        async function* () {
          attempts++;
          if (attempts < 3) throw new AgentError('overloaded', 'PROVIDER_ERROR', { retryable: true });
          yield 'ok';
        },
        { policy: fast },
      ),
    );
    expect(out).toEqual(['ok']);
    expect(attempts).toBe(3);
  });

  it('gives up after maxAttempts and rethrows the last error', async () => {
    let attempts = 0;
    const run = collect(
      retryStream(
        failing(() => {
          attempts++;
          throw new TypeError('terminated');
        }),
        { policy: fast },
      ),
    );
    await expect(run).rejects.toThrow('terminated');
    expect(attempts).toBe(3);
  });

  it('does not retry a non-retryable error', async () => {
    let attempts = 0;
    const run = collect(
      retryStream(
        failing(() => {
          attempts++;
          throw Object.assign(new Error('401 bad key'), { status: 401, headers: new Headers() });
        }),
        { policy: fast },
      ),
    );
    await expect(run).rejects.toThrow('401');
    expect(attempts).toBe(1);
  });

  it('never retries once an item was yielded', async () => {
    let attempts = 0;
    const seen: string[] = [];
    const run = (async () => {
      for await (const item of retryStream(
        async function* () {
          attempts++;
          yield 'partial';
          throw new TypeError('terminated');
        },
        { policy: fast },
      ))
        seen.push(item);
    })();
    await expect(run).rejects.toThrow('terminated');
    expect(attempts).toBe(1);
    expect(seen).toEqual(['partial']);
  });

  it('aborts the attempt when it goes idle and says so', async () => {
    let timedOut = false;
    const run = collect(
      retryStream(
        failing(async (control) => {
          await new Promise((resolve) => control.signal.addEventListener('abort', resolve, { once: true }));
          timedOut = control.timedOut;
          throw new Error('aborted by idle timer');
        }),
        { policy: retryPolicy({ maxAttempts: 1 }), idleTimeoutMs: 20 },
      ),
    );
    await expect(run).rejects.toThrow('aborted by idle timer');
    expect(timedOut).toBe(true);
  });

  it('stops waiting to retry when the caller aborts', async () => {
    const controller = new AbortController();
    const run = collect(
      retryStream(
        async function* (): AsyncGenerator<string> {
          setTimeout(() => controller.abort(), 10);
          throw new AgentError('slow down', 'PROVIDER_ERROR', {
            retryable: true,
            context: { retryAfterMs: 20_000 },
          });
        },
        { policy: retryPolicy({ maxDelayMs: 60_000 }), signal: controller.signal },
      ),
    );
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('sleep rejects at once on an aborted signal', async () => {
    await expect(sleep(10_000, AbortSignal.abort())).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
